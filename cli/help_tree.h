// The CLI11 tree as the help shows it, for the documents generated from it: the manual page
// (`kiln help-man`, cli/man_page.cpp) and the bash completion (`kiln completion bash`,
// cli/completion_command.cpp). Both read only what --help prints, so they follow the CLI.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace kiln::cli {

// One option as --help lists it.
struct HelpOption {
  std::vector<std::string> names;  // "-i", "--input-fact" (short first); a positional: its name
  bool positional = false;
  bool required = false;
  bool takes_value = false;          // false: a flag
  bool repeatable = false;           // takes several values (CLI11 vectors)
  std::string metavar;               // TEXT, INT, FLOAT, UINT ... (CLI11's type name)
  std::vector<std::string> choices;  // the values of an enum option (CLI::IsMember)
  std::string default_value;         // shown as "=x" by --help
  std::string description;
};

// A footer's entry: "  term  description" (two spaces or more between them).
struct HelpEntry {
  std::string term, description;
};

// A footer: prose lines before any heading, then headings ("Examples:", "Environment:", ...) with
// their indented entries; unindented lines after a heading's entries are `after`.
struct HelpFooter {
  std::vector<std::string> prose;
  struct Section {
    std::string heading;  // without its colon
    std::vector<HelpEntry> entries;
    std::vector<std::string> after;
  };
  std::vector<Section> sections;
  const Section* find(const std::string& heading) const;
};

// The subcommands --help lists (hidden ones, those in no group, are left out).
std::vector<const CLI::App*> visible_subcommands(const CLI::App& app);
// The options of `app` --help lists (-h/--help included), positionals first, then the others in
// --help's order.
std::vector<HelpOption> help_options(const CLI::App& app);
HelpFooter parse_footer(const std::string& footer);

}  // namespace kiln::cli
