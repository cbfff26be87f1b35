// kiln: the command-line entry point. Errors are caught here, once, and become exit codes:
// 0 success, 1 failure (load error, unsupported op, mismatch), 2 usage error.
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <map>

#include "base/error.h"
#include "cli/commands.h"

#ifndef KILN_VERSION
#define KILN_VERSION "dev"
#endif

int main(int argc, char** argv) {
  CLI::App app{"kiln: load, optimize, run and profile neural networks on small CPUs"};
  app.set_version_flag("--version", std::string("kiln ") + KILN_VERSION);
  app.require_subcommand(1);
  int verbosity = 0;
  app.add_flag("-v,--verbose", verbosity, "More logs on stderr (-v info, -vv debug)");
  std::map<CLI::App*, kiln::cli::Command> commands;
  auto add = [&](kiln::cli::Command c) { commands[app.get_subcommands({}).back()] = std::move(c); };
  add(kiln::cli::add_run_command(app));
  add(kiln::cli::add_dump_command(app));
  add(kiln::cli::add_bench_command(app));
  add(kiln::cli::add_profile_command(app));
  add(kiln::cli::add_ops_command(app));
  add(kiln::cli::add_convert_command(app));
  add(kiln::cli::add_compare_command(app));
  add(kiln::cli::add_quantize_command(app));
  add(kiln::cli::add_completion_command(app));
  add(kiln::cli::add_man_command(app));
  // The footer's sections become the manual page's (cli/man_page.cpp): Examples -> EXAMPLES,
  // Exit status -> EXIT STATUS, Environment -> ENVIRONMENT.
  app.footer(
      "Run 'kiln SUBCOMMAND --help' for the options of each.\n"
      "Examples:\n"
      "  kiln dump model.onnx                      print the graph with shapes\n"
      "  kiln run model.onnx --input-bundle test_data_set_0 --assert-output-bundle "
      "test_data_set_0\n"
      "  kiln convert model.onnx model.nnef.tgz    write the model as NNEF\n"
      "  kiln dump model.onnx -O --cost            the optimized graph with per-node FMA\n"
      "  kiln bench model.onnx --json              median/min/p90/p99 ms on random inputs\n"
      "  kiln profile model.onnx                   per-node time, cost and memory\n"
      "  kiln compare model.onnx model.nnef.tgz    where do two runs start to differ?\n"
      "  kiln quantize model.onnx q.onnx --random 16   int8 QDQ model (calibrated)\n"
      "Exit status:\n"
      "  0   success\n"
      "  1   failure: a load error, an unsupported operator, outputs that do not match, a "
      "limit passed\n"
      "  2   usage error: an unknown option, a missing or invalid value\n"
      "Environment:\n"
      "  KILN_ISA=generic|avx2|avx512|neon   run the kernels of this instruction set instead of "
      "the best one the CPU has (an ISA the CPU cannot run is an error)\n"
      "  KILN_INT8_DOT=0   int8 kernels without the dot-product instructions (AVX-512 VNNI)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  auto logger = spdlog::stderr_color_mt("kiln");
  logger->set_pattern("kiln: %l: %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(verbosity >= 2   ? spdlog::level::debug
                    : verbosity == 1 ? spdlog::level::info
                                     : spdlog::level::warn);
  try {
    for (auto* sub : app.get_subcommands())
      if (commands.count(sub)) return commands[sub]();
    return 2;
  } catch (const kiln::Error& e) {
    fmt::print(stderr, "kiln: error: {}\n", e.chain());
    return 1;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "kiln: error: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "kiln: error: {}\n", e.what());
    return 1;
  }
}
