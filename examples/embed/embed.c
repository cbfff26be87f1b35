/* Runs a model with kiln's C API: embed_c MODEL [INPUT.npy|.pb ...] [--labels FILE] (inputs in
 * order; the others are zeros of the model's input shapes). Prints each output's name, shape and
 * first values; with --labels (one class name per line), the top 3 classes of output 0 instead,
 * as `kiln run --labels` prints them. */
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

/* The labels of a file, one per line (trailing empty lines dropped); NULL when unreadable. */
static char** read_labels(const char* path, size_t* count) {
  FILE* f = fopen(path, "r");
  if (!f) return NULL;
  char** labels = NULL;
  size_t n = 0;
  char line[1024];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = 0;
    char** grown = realloc(labels, (n + 1) * sizeof *labels);
    if (!grown) break;
    labels = grown;
    labels[n] = malloc(strlen(line) + 1);
    if (labels[n]) strcpy(labels[n], line);
    n++;
  }
  fclose(f);
  while (n > 0 && labels[n - 1] && labels[n - 1][0] == 0) free(labels[--n]);
  *count = n;
  return labels;
}

/* "  1. name  4.9665" for the k best scores of each row (ties: the lower index first). */
static void print_top(const float* v, size_t numel, size_t n, char** labels, size_t k) {
  size_t rows = n ? numel / n : 0;
  if (k > n) k = n;
  char* taken = calloc(n + 1, 1);
  for (size_t r = 0; r < rows; r++) {
    if (rows > 1) printf("row %zu:\n", r);
    memset(taken, 0, n + 1);
    for (size_t i = 0; i < k; i++) {
      size_t best = n;
      for (size_t c = 0; c < n; c++)
        if (!taken[c] && (best == n || v[r * n + c] > v[r * n + best])) best = c;
      taken[best] = 1;
      printf("  %zu. %s  %.4f\n", i + 1, labels[best], (double)v[r * n + best]);
    }
  }
  free(taken);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL [INPUT.npy ...] [--labels FILE]\n", argv[0]);
    return 2;
  }
  const char* labels_path = NULL;
  const char** files = calloc((size_t)argc, sizeof *files);
  int n_files = 0;
  for (int a = 2; a < argc; a++) {
    if (strcmp(argv[a], "--labels") == 0 && a + 1 < argc)
      labels_path = argv[++a];
    else
      files[n_files++] = argv[a];
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
    if ((int)i < n_files) {
      TRY(kiln_tensor_read(files[i], &inputs[i]));
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
  if (labels_path) {
    size_t n_labels = 0;
    char** labels = read_labels(labels_path, &n_labels);
    const char* name;
    const int64_t* shape;
    size_t rank, nbytes;
    void* data;
    kiln_datum_type dt;
    TRY(kiln_runnable_output_name(runnable, 0, &name));
    TRY(kiln_tensor_shape(outputs[0], &shape, &rank));
    TRY(kiln_tensor_data(outputs[0], &data, &nbytes));
    TRY(kiln_tensor_datum_type(outputs[0], &dt));
    if (!labels || dt != KILN_F32 || rank == 0 || (size_t)shape[rank - 1] != n_labels) {
      fprintf(stderr, "embed_c: error: --labels: output 0 does not hold %zu f32 scores per row\n",
              n_labels);
      return 1;
    }
    printf("output 0 '%s' top 3:\n", name);
    print_top((const float*)data, nbytes / sizeof(float), n_labels, labels, 3);
    for (size_t i = 0; i < n_labels; i++) free(labels[i]);
    free(labels);
    for (size_t i = 0; i < n_out; i++) kiln_tensor_destroy(outputs[i]);
    n_out = 0; /* printed: the loop below prints nothing more */
  }
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
  free(files);
  kiln_session_destroy(session);
  kiln_runnable_destroy(runnable);
  kiln_model_destroy(model);
  return 0;
}
