// The subcommands: each registers its options on the app and returns the function to run.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace kiln::cli {

using Command = std::function<int()>;

Command add_run_command(CLI::App& app);
Command add_dump_command(CLI::App& app);
Command add_bench_command(CLI::App& app);
Command add_profile_command(CLI::App& app);
Command add_ops_command(CLI::App& app);
Command add_convert_command(CLI::App& app);
Command add_compare_command(CLI::App& app);
Command add_quantize_command(CLI::App& app);
// Documents generated from the app's own tree (cli/help_tree.h): `kiln completion bash` and the
// hidden `kiln help-man` (the manual page). They keep a reference to `app`.
Command add_completion_command(CLI::App& app);
Command add_man_command(CLI::App& app);

}  // namespace kiln::cli
