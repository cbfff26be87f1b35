/* Runs a model with kiln's C API: embed_c MODEL [INPUT.npy|.pb ...] (inputs in order; the others
 * are zeros of the model's input shapes). Prints each output's name, shape and first values. */
#include <kiln/kiln.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRY(call)                                                 \
  do {                                                            \
    if ((call) != KILN_OK) {                                      \
      fprintf(stderr, "embed_c: error: %s\n", kiln_last_error()); \
      return 1;                                                   \
    }                                                             \
  } while (0)

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL [INPUT.npy ...]\n", argv[0]);
    return 2;
  }
  kiln_model* model;
  kiln_runnable* runnable;
  kiln_session* session;
  size_t n_in, n_out;
  TRY(kiln_model_load(argv[1], NULL, &model));
  TRY(kiln_model_optimize(model, &runnable));
  TRY(kiln_runnable_num_inputs(runnable, &n_in));
  TRY(kiln_runnable_num_outputs(runnable, &n_out));
  kiln_tensor** inputs = calloc(n_in + 1, sizeof *inputs);
  kiln_tensor** outputs = calloc(n_out + 1, sizeof *outputs);
  for (size_t i = 0; i < n_in; i++) {
    if ((int)i + 2 < argc) {
      TRY(kiln_tensor_read(argv[i + 2], &inputs[i]));
      continue;
    }
    const char* fact; /* "1,40,100,f32": zeros of that shape */
    TRY(kiln_runnable_input_fact(runnable, i, &fact));
    int64_t dims[16];
    size_t rank = 0;
    const char* p = fact;
    char* end;
    while (rank < 16) {
      long long d = strtoll(p, &end, 10);
      if (end == p || *end != ',') break;
      dims[rank++] = d;
      p = end + 1;
    }
    if (strcmp(p, "f32") != 0) {
      fprintf(stderr, "embed_c: input %zu (%s): give it as a file\n", i, fact);
      return 1;
    }
    TRY(kiln_tensor_create(KILN_F32, dims, rank, NULL, 0, &inputs[i]));
  }
  TRY(kiln_session_create(runnable, 0, &session));
  TRY(kiln_session_run(session, (const kiln_tensor* const*)inputs, n_in, outputs, n_out));
  for (size_t i = 0; i < n_out; i++) {
    const char* name;
    const int64_t* shape;
    size_t rank, nbytes;
    void* data;
    kiln_datum_type dt;
    TRY(kiln_runnable_output_name(runnable, i, &name));
    TRY(kiln_tensor_shape(outputs[i], &shape, &rank));
    TRY(kiln_tensor_data(outputs[i], &data, &nbytes));
    TRY(kiln_tensor_datum_type(outputs[i], &dt));
    printf("output %zu '%s': ", i, name);
    for (size_t d = 0; d < rank; d++) printf("%lld,", (long long)shape[d]);
    printf("%s", kiln_datum_type_name(dt));
    if (dt == KILN_F32) {
      size_t n = nbytes / sizeof(float);
      printf(" [");
      for (size_t k = 0; k < n && k < 16; k++) printf("%s%g", k ? ", " : "", ((float*)data)[k]);
      printf("%s]", n > 16 ? ", ..." : "");
    }
    printf("\n");
    kiln_tensor_destroy(outputs[i]);
  }
  for (size_t i = 0; i < n_in; i++) kiln_tensor_destroy(inputs[i]);
  free(inputs);
  free(outputs);
  kiln_session_destroy(session);
  kiln_runnable_destroy(runnable);
  kiln_model_destroy(model);
  return 0;
}
