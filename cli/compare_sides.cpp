#include "cli/compare_sides.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "base/error.h"
#include "base/isa.h"
#include "base/threading.h"
#include "cli/stage_options.h"
#include "io/tensor/tensor_files.h"
#include "passes/pipeline.h"

extern char** environ;

namespace kiln::cli {

namespace fs = std::filesystem;

namespace {

std::string this_isa() {
  return isa_name(active_isa());
}

bool in_process(const SideSpec& side) {
  return side.isa.empty() || side.isa == this_isa();
}

// A temporary directory removed when it goes out of scope.
struct TempDir {
  fs::path path;
  TempDir() {
    static std::atomic<int> counter{0};
    path = fs::temp_directory_path() /
           fmt::format("kiln-compare-{}-{}", ::getpid(), counter.fetch_add(1));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

CapturedRun run_here(const SideSpec& side, const std::vector<Tensor>& inputs) {
  if (side.threads > 0) set_num_threads(side.threads);
  auto graph = load_model_with_facts(side.model);
  KILN_ENSURE(inputs.size() == graph->inputs().size(),
              "side {} ({}) has {} inputs, side A {}: not the same model interface", side.label,
              side.model.path, graph->inputs().size(), inputs.size());
  bind_input_shapes(*graph, inputs);
  passes::check_constant_inputs(*graph, inputs);
  StageOptions stage;
  stage.stage = side.stage;
  run_stages(*graph, stage);
  CapturedRun run = capture_run(graph, inputs);
  run.description = describe_side(side);
  return run;
}

// `kiln run MODEL ... --save-values DIR` in a child process with KILN_ISA set.
CapturedRun run_child(const SideSpec& side, const std::vector<Tensor>& inputs) {
  TempDir tmp;
  fs::create_directories(tmp.path / "inputs");
  for (size_t i = 0; i < inputs.size(); i++)
    io::write_tensor_pb((tmp.path / "inputs" / fmt::format("input_{}.pb", i)).string(), inputs[i]);
  std::vector<std::string> args = {"kiln", "run", side.model.path, "--stage", side.stage};
  if (!side.model.format.empty()) args.insert(args.end(), {"--format", side.model.format});
  for (const auto& f : side.model.input_facts) args.insert(args.end(), {"-i", f});
  for (const auto& n : side.model.input_nodes) args.insert(args.end(), {"--input-node", n});
  for (const auto& n : side.model.output_nodes) args.insert(args.end(), {"--output-node", n});
  if (side.threads > 0) args.insert(args.end(), {"--threads", std::to_string(side.threads)});
  args.insert(args.end(),
              {"--input-bundle", (tmp.path / "inputs").string(), "--save-values",
               (tmp.path / "values").string(), "--output-dir", (tmp.path / "outputs").string()});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_text;
  for (char** e = environ; *e; e++)
    if (std::string(*e).rfind("KILN_ISA=", 0) != 0) env_text.push_back(*e);
  env_text.push_back("KILN_ISA=" + side.isa);
  std::vector<char*> envp;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // Its stdout is not ours to print (compare --json owns stdout); errors go to stderr.
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  KILN_ENSURE(rc == 0, "side {}: cannot start kiln for KILN_ISA={}: {}", side.label, side.isa,
              std::strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  KILN_ENSURE(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "side {} ({}): the kiln run under KILN_ISA={} failed (exit status {}; its error is "
              "above)",
              side.label, side.model.path, side.isa, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  CapturedRun run = load_values((tmp.path / "values").string());
  run.description = describe_side(side);
  return run;
}

}  // namespace

std::string describe_side(const SideSpec& side) {
  if (side.model.path.empty()) return "reference values in " + side.reference;
  return fmt::format("{} (stage {}, ISA {}{}, {} threads)", side.model.path, side.stage,
                     side.isa.empty() ? this_isa() : side.isa,
                     in_process(side) ? "" : " in a child process",
                     side.threads > 0 ? side.threads : num_threads());
}

CapturedRun run_side(const SideSpec& side, const std::vector<Tensor>& inputs) {
  if (side.model.path.empty()) {
    CapturedRun run = load_values(side.reference);
    run.description = describe_side(side);
    return run;
  }
  return in_process(side) ? run_here(side, inputs) : run_child(side, inputs);
}

}  // namespace kiln::cli
