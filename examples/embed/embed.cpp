// Runs a model with kiln's C++ API: embed MODEL [NAME=FILE.npy|.pb ...]
// Inputs not given are zeros of the model's input shapes. Prints each output as `kiln run` does:
// "output N 'name': SHAPE,TYPE [values...]".
#include <kiln/kiln.hpp>

#include <cstdio>
#include <map>
#include <string>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL [NAME=FILE.npy ...]\n", argv[0]);
    return 2;
  }
  try {
    kiln::api::Model model = kiln::api::Model::load(argv[1]);
    std::map<std::string, kiln::api::Tensor> given;
    for (int i = 2; i < argc; i++) {
      std::string arg = argv[i];
      size_t eq = arg.find('=');
      if (eq == std::string::npos) throw kiln::Error("expected NAME=FILE, got '" + arg + "'");
      given[arg.substr(0, eq)] = kiln::api::read_tensor(arg.substr(eq + 1));
    }
    kiln::api::Runnable runnable = model.optimize();
    std::vector<kiln::api::Tensor> inputs;
    for (size_t i = 0; i < runnable.num_inputs(); i++) {
      auto it = given.find(runnable.input_name(i));
      if (it != given.end()) {
        inputs.push_back(it->second);
        continue;
      }
      // Zeros of the input's fact ("1,40,100,f32"): every dim must be a number.
      std::string fact = runnable.input_fact(i);
      std::vector<int64_t> shape;
      size_t start = 0, comma;
      while ((comma = fact.find(',', start)) != std::string::npos) {
        shape.push_back(std::stoll(fact.substr(start, comma - start)));
        start = comma + 1;
      }
      if (fact.substr(start) != "f32")
        throw kiln::Error("input '" + runnable.input_name(i) + "' (" + fact +
                          "): give it as NAME=FILE.npy");
      inputs.emplace_back(kiln::api::DataType::F32, shape);
    }
    kiln::api::Session session = runnable.session();
    auto outputs = session.run(inputs);
    for (size_t i = 0; i < outputs.size(); i++)
      std::printf("output %zu '%s': %s\n", i, runnable.output_name(i).c_str(),
                  outputs[i].to_string(16).c_str());
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "embed: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "embed: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
