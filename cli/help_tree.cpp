#include "cli/help_tree.h"

#include <algorithm>

namespace kiln::cli {

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(' ');
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(' ');
  return s.substr(b, e - b + 1);
}

HelpOption describe(const CLI::Option& opt) {
  HelpOption h;
  h.positional = opt.get_positional() && !opt.nonpositional();
  if (h.positional) {
    h.names.push_back(opt.get_name());
  } else {
    for (const auto& s : opt.get_snames()) h.names.push_back("-" + s);
    for (const auto& l : opt.get_lnames()) h.names.push_back("--" + l);
  }
  h.required = opt.get_required();
  h.takes_value = opt.get_items_expected_max() > 0;  // a flag expects no value
  h.repeatable = opt.get_items_expected_max() > 1;
  h.description = opt.get_description();
  h.default_value = opt.get_default_str();
  if (h.takes_value) {
    // CLI11's type name, then ":" and each validator's description: TEXT:{pb,npy}, INT:POSITIVE.
    const std::string type = opt.get_type_name();
    size_t colon = type.find(':');
    h.metavar = type.substr(0, colon);
    size_t open = type.find('{', colon == std::string::npos ? type.size() : colon);
    size_t close = open == std::string::npos ? open : type.find('}', open);
    if (close != std::string::npos) {
      std::string list = type.substr(open + 1, close - open - 1);
      size_t start = 0;
      while (start <= list.size()) {
        size_t comma = list.find(',', start);
        if (comma == std::string::npos) comma = list.size();
        std::string item = trim(list.substr(start, comma - start));
        if (!item.empty()) h.choices.push_back(item);
        start = comma + 1;
      }
    }
  }
  return h;
}

}  // namespace

const HelpFooter::Section* HelpFooter::find(const std::string& heading) const {
  for (const auto& s : sections)
    if (s.heading == heading) return &s;
  return nullptr;
}

std::vector<const CLI::App*> visible_subcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* sub) { return !sub->get_group().empty(); });
}

std::vector<HelpOption> help_options(const CLI::App& app) {
  std::vector<HelpOption> positionals, others;
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_group().empty()) continue;  // hidden
    HelpOption h = describe(*opt);
    (h.positional ? positionals : others).push_back(std::move(h));
  }
  positionals.insert(positionals.end(), others.begin(), others.end());
  return positionals;
}

HelpFooter parse_footer(const std::string& footer) {
  HelpFooter out;
  size_t start = 0;
  while (start < footer.size()) {
    size_t end = footer.find('\n', start);
    if (end == std::string::npos) end = footer.size();
    const std::string line = footer.substr(start, end - start);
    start = end + 1;
    if (trim(line).empty()) continue;
    const bool indented = line[0] == ' ';
    const std::string text = trim(line);
    // A heading: an unindented short line ending with a colon ("Examples:", "Exit status:").
    if (!indented && text.back() == ':' && text.find(": ") == std::string::npos &&
        std::count(text.begin(), text.end(), ' ') < 3) {
      out.sections.push_back({text.substr(0, text.size() - 1), {}, {}});
      continue;
    }
    if (out.sections.empty()) {
      out.prose.push_back(text);
    } else if (!indented) {
      out.sections.back().after.push_back(text);
    } else {
      size_t gap = text.find("  ");
      HelpEntry e{trim(text.substr(0, gap)),
                  gap == std::string::npos ? "" : trim(text.substr(gap))};
      out.sections.back().entries.push_back(std::move(e));
    }
  }
  return out;
}

}  // namespace kiln::cli
