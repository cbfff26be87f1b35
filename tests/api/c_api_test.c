/* The C API (include/kiln/kiln.h) from a C11 program: every function, its error paths (status
 * and message), and a shared model's outputs against its reference.
 * Usage: kiln_c_api_test [MODELS_DIR] (the shared models, KILN_SHARED_MODELS first; exits 77 =
 * skipped when absent, after the checks that need no model). */
#include <kiln/kiln.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failures = 0;

#define CHECK(cond)                                                                            \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n", __FILE__, __LINE__, #cond, \
              kiln_last_error());                                                              \
      failures++;                                                                              \
    }                                                                                          \
  } while (0)
#define CHECK_OK(call) CHECK((call) == KILN_OK)
/* The call fails with that status and its message contains `text`. */
#define CHECK_FAILS(call, status, text)                                                          \
  do {                                                                                           \
    kiln_status s_ = (call);                                                                     \
    CHECK(s_ == (status));                                                                       \
    if (strstr(kiln_last_error(), (text)) == NULL) {                                             \
      fprintf(stderr, "%s:%d: message '%s' lacks '%s'\n", __FILE__, __LINE__, kiln_last_error(), \
              (text));                                                                           \
      failures++;                                                                                \
    }                                                                                            \
  } while (0)

static char* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* data = malloc((size_t)n);
  *size = fread(data, 1, (size_t)n, f);
  fclose(f);
  return data;
}

/* Every element within atol + rtol * |want|. */
static int close_to(const kiln_tensor* got, const kiln_tensor* want) {
  kiln_datum_type dg, dw;
  const int64_t *sg, *sw;
  size_t rg, rw, ng, nw;
  void *pg, *pw;
  if (kiln_tensor_datum_type(got, &dg) || kiln_tensor_datum_type(want, &dw) || dg != dw ||
      dg != KILN_F32)
    return 0;
  if (kiln_tensor_shape(got, &sg, &rg) || kiln_tensor_shape(want, &sw, &rw) || rg != rw) return 0;
  for (size_t i = 0; i < rg; i++)
    if (sg[i] != sw[i]) return 0;
  if (kiln_tensor_data(got, &pg, &ng) || kiln_tensor_data(want, &pw, &nw) || ng != nw) return 0;
  const float *g = pg, *w = pw;
  for (size_t i = 0; i < ng / sizeof(float); i++)
    if (!(fabsf(g[i] - w[i]) <= 1e-5f + 1e-4f * fabsf(w[i]))) return 0;
  return 1;
}

static void test_tensors(void) {
  CHECK(strcmp(kiln_version(), "") != 0);
  CHECK(strcmp(kiln_datum_type_name(KILN_F32), "f32") == 0);
  CHECK(strcmp(kiln_datum_type_name(KILN_BOOL), "bool") == 0);
  CHECK(kiln_datum_type_name((kiln_datum_type)99) == NULL);
  CHECK(kiln_datum_type_size(KILN_I64) == 8);
  CHECK(kiln_datum_type_size((kiln_datum_type)0) == 0);

  int64_t shape[2] = {2, 3};
  float values[6] = {1, 2, 3, 4, 5, 6};
  kiln_tensor* t = NULL;
  CHECK_OK(kiln_tensor_create(KILN_F32, shape, 2, values, sizeof values, &t));
  values[0] = 100; /* the tensor holds a copy */
  kiln_datum_type dt;
  CHECK_OK(kiln_tensor_datum_type(t, &dt));
  CHECK(dt == KILN_F32);
  const int64_t* dims;
  size_t rank;
  CHECK_OK(kiln_tensor_shape(t, &dims, &rank));
  CHECK(rank == 2 && dims[0] == 2 && dims[1] == 3);
  void* data;
  size_t nbytes;
  CHECK_OK(kiln_tensor_data(t, &data, &nbytes));
  CHECK(nbytes == 24 && ((float*)data)[0] == 1 && ((float*)data)[5] == 6);
  kiln_tensor_destroy(t);

  kiln_tensor* zeros = NULL;
  CHECK_OK(kiln_tensor_create(KILN_I64, shape, 2, NULL, 0, &zeros));
  CHECK_OK(kiln_tensor_data(zeros, &data, &nbytes));
  CHECK(nbytes == 48 && ((int64_t*)data)[5] == 0);
  kiln_tensor_destroy(zeros);
  kiln_tensor_destroy(NULL);

  kiln_tensor* bad = NULL;
  CHECK_FAILS(kiln_tensor_create(KILN_F32, shape, 2, values, 20, &bad), KILN_ERROR,
              "a f32 tensor of shape [2,3] holds 24 bytes, 20 given");
  CHECK(bad == NULL);
  CHECK_FAILS(kiln_tensor_create((kiln_datum_type)42, shape, 2, NULL, 0, &bad),
              KILN_INVALID_ARGUMENT, "unknown datum type code 42");
  CHECK_FAILS(kiln_tensor_create(KILN_F32, NULL, 2, NULL, 0, &bad), KILN_INVALID_ARGUMENT,
              "shape is NULL");
  CHECK_FAILS(kiln_tensor_read("/nonexistent.npy", &bad), KILN_ERROR, "/nonexistent.npy");
  CHECK_FAILS(kiln_tensor_shape(NULL, &dims, &rank), KILN_INVALID_ARGUMENT, "tensor is NULL");
  CHECK_FAILS(kiln_tensor_data(NULL, &data, &nbytes), KILN_INVALID_ARGUMENT, "tensor is NULL");
  CHECK_FAILS(kiln_tensor_datum_type(NULL, &dt), KILN_INVALID_ARGUMENT, "tensor is NULL");
}

static void test_load_errors(void) {
  kiln_model* model = NULL;
  CHECK_FAILS(kiln_model_load("/nonexistent/model.onnx", NULL, &model), KILN_ERROR,
              "model file '/nonexistent/model.onnx' does not exist");
  CHECK(model == NULL);
  CHECK_FAILS(kiln_model_load("x.onnx", "caffe", &model), KILN_INVALID_ARGUMENT,
              "unknown model format 'caffe' (expected onnx, tf or nnef)");
  CHECK_FAILS(kiln_model_load(NULL, NULL, &model), KILN_INVALID_ARGUMENT, "path is NULL");
  const char junk[] = "not a model";
  CHECK_FAILS(kiln_model_load_memory(junk, sizeof junk, "onnx", &model), KILN_ERROR,
              "is not a valid ONNX model");
  CHECK_FAILS(kiln_model_load_memory(junk, sizeof junk, "tf", &model), KILN_ERROR,
              "not a valid TensorFlow GraphDef");
  CHECK_FAILS(kiln_model_load_memory(junk, sizeof junk, "nnef", &model), KILN_ERROR, "model");
  CHECK_FAILS(kiln_model_load_memory(junk, sizeof junk, NULL, &model), KILN_INVALID_ARGUMENT,
              "format is NULL");
  CHECK(model == NULL);
  size_t n;
  CHECK_FAILS(kiln_model_num_inputs(NULL, &n), KILN_INVALID_ARGUMENT, "model is NULL");
  kiln_model_destroy(NULL);
  kiln_runnable_destroy(NULL);
  kiln_session_destroy(NULL);
}

static void test_model(const char* models) {
  char path[4096], in0[4096], out0[4096], nnef[4096];
  snprintf(path, sizeof path, "%s/kws_tdnn/model.onnx", models);
  snprintf(in0, sizeof in0, "%s/kws_tdnn/test_data_set_0/input_0.pb", models);
  snprintf(out0, sizeof out0, "%s/kws_tdnn/test_data_set_0/output_0.pb", models);
  snprintf(nnef, sizeof nnef, "%s/kiln_c_api_test_%ld.nnef.tgz",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)clock());

  kiln_model* model = NULL;
  CHECK_OK(kiln_model_load(path, NULL, &model));
  if (!model) return;
  size_t n_in = 0, n_out = 0;
  CHECK_OK(kiln_model_num_inputs(model, &n_in));
  CHECK_OK(kiln_model_num_outputs(model, &n_out));
  CHECK(n_in == 1 && n_out == 1);
  const char *name, *out_name, *fact;
  CHECK_OK(kiln_model_input_name(model, 0, &name));
  CHECK_OK(kiln_model_output_name(model, 0, &out_name));
  CHECK_OK(kiln_model_input_fact(model, 0, &fact));
  CHECK(strlen(name) > 0 && strlen(out_name) > 0 && strstr(fact, "f32") != NULL);
  CHECK_FAILS(kiln_model_input_name(model, 1, &name), KILN_INVALID_ARGUMENT,
              "input 1 out of range: the model has 1 inputs");
  CHECK_FAILS(kiln_model_output_name(model, 5, &name), KILN_INVALID_ARGUMENT,
              "output 5 out of range");
  CHECK_FAILS(kiln_model_input_fact(model, 5, &fact), KILN_INVALID_ARGUMENT, "input 5");
  CHECK_FAILS(kiln_model_set_input_fact(model, "nope:1,2,f32"), KILN_ERROR,
              "-i nope:1,2,f32: the model has no input named 'nope'");
  CHECK_FAILS(kiln_model_set_input_fact(model, "1,40,100,f32"), KILN_OK, "");
  CHECK_FAILS(kiln_model_set_input_fact(model, "1,2,f32"), KILN_ERROR,
              "-i 1,2,f32: the model has only 1 inputs");
  CHECK_OK(kiln_model_input_fact(model, 0, &fact));
  CHECK(strcmp(fact, "1,40,100,f32") == 0);

  kiln_tensor *input = NULL, *expected = NULL;
  CHECK_OK(kiln_tensor_read(in0, &input));
  CHECK_OK(kiln_tensor_read(out0, &expected));

  kiln_runnable *runnable = NULL, *typed = NULL;
  CHECK_OK(kiln_model_optimize(model, &runnable));
  CHECK_OK(kiln_model_prepare(model, 0, &typed));
  if (!runnable || !typed || !input || !expected) return;
  CHECK_OK(kiln_runnable_num_inputs(runnable, &n_in));
  CHECK_OK(kiln_runnable_num_outputs(runnable, &n_out));
  CHECK(n_in == 1 && n_out == 1);
  const char *r_name, *r_out, *r_in_fact, *r_out_fact;
  CHECK_OK(kiln_runnable_input_name(runnable, 0, &r_name));
  CHECK_OK(kiln_runnable_output_name(runnable, 0, &r_out));
  CHECK_OK(kiln_runnable_input_fact(runnable, 0, &r_in_fact));
  CHECK_OK(kiln_runnable_output_fact(runnable, 0, &r_out_fact));
  CHECK(strcmp(r_name, name) == 0 && strcmp(r_out, out_name) == 0);
  CHECK(strcmp(r_in_fact, "1,40,100,f32") == 0 && strstr(r_out_fact, "f32") != NULL);
  CHECK_FAILS(kiln_runnable_output_fact(runnable, 1, &r_out_fact), KILN_INVALID_ARGUMENT,
              "output 1 out of range");

  kiln_session *session = NULL, *typed_session = NULL;
  CHECK_OK(kiln_session_create(runnable, 1, &session));
  CHECK_OK(kiln_session_create(typed, 0, &typed_session));
  if (!session || !typed_session) return;
  kiln_tensor* output = NULL;
  const kiln_tensor* inputs[1] = {input};
  CHECK_OK(kiln_session_run(session, inputs, 1, &output, 1));
  CHECK(output != NULL && close_to(output, expected));
  kiln_tensor_destroy(output);
  output = NULL;
  CHECK_OK(kiln_session_run(typed_session, inputs, 1, &output, 1));
  CHECK(output != NULL && close_to(output, expected));
  kiln_tensor_destroy(output);

  /* Wrong shape, wrong type, wrong count: a status and a message naming the input. */
  int64_t wrong_shape[3] = {1, 40, 7};
  kiln_tensor* wrong = NULL;
  CHECK_OK(kiln_tensor_create(KILN_F32, wrong_shape, 3, NULL, 0, &wrong));
  const kiln_tensor* wrong_inputs[1] = {wrong};
  output = NULL;
  CHECK_FAILS(kiln_session_run(session, wrong_inputs, 1, &output, 1), KILN_ERROR, name);
  CHECK(output == NULL);
  kiln_tensor_destroy(wrong);
  int64_t right_shape[3] = {1, 40, 100};
  CHECK_OK(kiln_tensor_create(KILN_I32, right_shape, 3, NULL, 0, &wrong));
  wrong_inputs[0] = wrong;
  CHECK_FAILS(kiln_session_run(session, wrong_inputs, 1, &output, 1), KILN_ERROR, "i32");
  kiln_tensor_destroy(wrong);
  CHECK_FAILS(kiln_session_run(session, inputs, 0, &output, 1), KILN_ERROR,
              "the model has 1 inputs, 0 given");
  CHECK_FAILS(kiln_session_run(session, inputs, 1, &output, 0), KILN_INVALID_ARGUMENT,
              "the model has 1 outputs, room for 0 given");
  const kiln_tensor* null_inputs[1] = {NULL};
  CHECK_FAILS(kiln_session_run(session, null_inputs, 1, &output, 1), KILN_INVALID_ARGUMENT,
              "inputs[0] is NULL");
  CHECK_FAILS(kiln_session_create(NULL, 1, &session), KILN_INVALID_ARGUMENT, "runnable is NULL");

  /* The session still runs after errors; then a profile. */
  output = NULL;
  CHECK_OK(kiln_session_run(session, inputs, 1, &output, 1));
  CHECK(output != NULL && close_to(output, expected));
  kiln_tensor_destroy(output);
  const char* profile = NULL;
  CHECK_OK(kiln_session_profile(session, inputs, 1, 2, &profile));
  CHECK(profile != NULL && strstr(profile, "\"total_ms\"") && strstr(profile, "\"nodes\": [{"));
  CHECK_FAILS(kiln_session_profile(session, inputs, 1, 0, &profile), KILN_ERROR,
              "runs must be positive");

  /* Caller memory: a wrapped input read in place, the output computed into a wrapped buffer
   * (the same values as kiln_session_run); the buffers' last element and the guard after the
   * output are untouched by anything but the model. */
  {
    const int64_t* in_dims;
    size_t in_rank;
    void* in_data;
    size_t in_bytes;
    const int64_t* out_dims;
    size_t out_rank;
    void* want_data;
    size_t out_bytes;
    CHECK_OK(kiln_tensor_shape(input, &in_dims, &in_rank));
    CHECK_OK(kiln_tensor_data(input, &in_data, &in_bytes));
    CHECK_OK(kiln_tensor_shape(expected, &out_dims, &out_rank));
    CHECK_OK(kiln_tensor_data(expected, &want_data, &out_bytes));
    float* in_copy = malloc(in_bytes);
    float* out_buf = malloc(out_bytes + 64);
    memcpy(in_copy, in_data, in_bytes);
    memset(out_buf, 0xAB, out_bytes + 64);
    kiln_tensor *wrapped_in = NULL, *wrapped_out = NULL;
    CHECK_OK(kiln_tensor_wrap(KILN_F32, in_dims, in_rank, in_copy, in_bytes, &wrapped_in));
    CHECK_OK(kiln_tensor_wrap(KILN_F32, out_dims, out_rank, out_buf, out_bytes, &wrapped_out));
    void* seen = NULL;
    size_t seen_bytes = 0;
    CHECK_OK(kiln_tensor_data(wrapped_out, &seen, &seen_bytes));
    CHECK(seen == out_buf && seen_bytes == out_bytes);
    const kiln_tensor* wrapped_inputs[1] = {wrapped_in};
    kiln_tensor* wrapped_outputs[1] = {wrapped_out};
    CHECK_OK(kiln_session_run_into(session, wrapped_inputs, 1, wrapped_outputs, 1));
    CHECK(close_to(wrapped_out, expected));
    CHECK(memcmp(in_copy, in_data, in_bytes) == 0); /* the input is only read */
    int guard_intact = 1;
    for (size_t i = 0; i < 64; i++)
      guard_intact &= ((unsigned char*)out_buf)[out_bytes + i] == 0xAB;
    CHECK(guard_intact);
    /* Same values as a run into kiln's own tensors. */
    output = NULL;
    CHECK_OK(kiln_session_run(session, inputs, 1, &output, 1));
    void* own = NULL;
    size_t own_bytes = 0;
    if (output) CHECK_OK(kiln_tensor_data(output, &own, &own_bytes));
    CHECK(own_bytes == out_bytes && own && memcmp(own, out_buf, out_bytes) == 0);
    kiln_tensor_destroy(output);
    /* After the runs, kiln keeps no reference to the buffers: a plain run leaves them alone. */
    memset(out_buf, 0x5A, out_bytes);
    output = NULL;
    CHECK_OK(kiln_session_run(session, inputs, 1, &output, 1));
    kiln_tensor_destroy(output);
    CHECK(((unsigned char*)out_buf)[0] == 0x5A && ((unsigned char*)out_buf)[out_bytes - 1] == 0x5A);

    /* Errors: sizes, alignment, an output of the wrong shape, NULLs. */
    kiln_tensor* bad = NULL;
    CHECK_FAILS(kiln_tensor_wrap(KILN_F32, in_dims, in_rank, in_copy, in_bytes - 4, &bad),
                KILN_ERROR, "bytes given");
    CHECK(bad == NULL);
    int64_t two[1] = {2};
    CHECK_FAILS(kiln_tensor_wrap(KILN_F32, two, 1, (char*)in_copy + 1, 8, &bad), KILN_ERROR,
                "not aligned to 4 bytes");
    CHECK_FAILS(kiln_tensor_wrap(KILN_F32, two, 1, NULL, 8, &bad), KILN_ERROR, "NULL");
    kiln_tensor* small = NULL;
    CHECK_OK(kiln_tensor_wrap(KILN_F32, two, 1, out_buf, 8, &small));
    kiln_tensor* small_outputs[1] = {small};
    CHECK_FAILS(kiln_session_run_into(session, wrapped_inputs, 1, small_outputs, 1), KILN_ERROR,
                "the buffer given is 2,f32 (8 bytes)");
    CHECK_FAILS(kiln_session_run_into(session, wrapped_inputs, 1, wrapped_outputs, 0), KILN_ERROR,
                "the model has 1 outputs, 0 output buffers given");
    kiln_tensor* null_outputs[1] = {NULL};
    CHECK_FAILS(kiln_session_run_into(session, wrapped_inputs, 1, null_outputs, 1),
                KILN_INVALID_ARGUMENT, "outputs[0] is NULL");
    kiln_tensor_destroy(small);
    kiln_tensor_destroy(wrapped_in);
    kiln_tensor_destroy(wrapped_out);
    free(in_copy);
    free(out_buf);
  }

  /* NNEF: save, load back from the file and from memory, same outputs. */
  CHECK_OK(kiln_model_save_nnef(model, nnef));
  CHECK_FAILS(kiln_model_save_nnef(model, NULL), KILN_INVALID_ARGUMENT, "path is NULL");
  kiln_model* reloaded = NULL;
  CHECK_OK(kiln_model_load(nnef, NULL, &reloaded));
  size_t size = 0;
  char* bytes = read_file(nnef, &size);
  kiln_model* from_memory = NULL;
  CHECK(bytes != NULL);
  if (bytes) CHECK_OK(kiln_model_load_memory(bytes, size, "nnef", &from_memory));
  free(bytes);
  remove(nnef);
  kiln_model* models_back[2] = {reloaded, from_memory};
  for (int m = 0; m < 2; m++) {
    kiln_runnable* r = NULL;
    kiln_session* s = NULL;
    output = NULL;
    if (!models_back[m]) continue;
    CHECK_OK(kiln_model_optimize(models_back[m], &r));
    CHECK_OK(kiln_session_create(r, 1, &s));
    CHECK_OK(kiln_session_run(s, inputs, 1, &output, 1));
    CHECK(output != NULL && close_to(output, expected));
    kiln_tensor_destroy(output);
    kiln_session_destroy(s);
    kiln_runnable_destroy(r);
    kiln_model_destroy(models_back[m]);
  }

  kiln_session_destroy(session);
  kiln_session_destroy(typed_session);
  kiln_runnable_destroy(runnable);
  kiln_runnable_destroy(typed);
  kiln_model_destroy(model);
  kiln_tensor_destroy(input);
  kiln_tensor_destroy(expected);
}

/* Streaming (wavenet_kws, pulse 8): the whole input through run_whole, then pushed 8 frames at
 * a time, against the whole-input reference; error paths with their messages. */
static void test_stream(const char* models) {
  char path[4096], in0[4096], out0[4096];
  snprintf(path, sizeof path, "%s/wavenet_kws/model.onnx", models);
  snprintf(in0, sizeof in0, "%s/wavenet_kws/test_data_set_0/input_0.pb", models);
  snprintf(out0, sizeof out0, "%s/wavenet_kws/test_data_set_0/output_0.pb", models);
  FILE* f = fopen(path, "rb");
  if (!f) {
    printf("C API: streaming checks skipped: no %s\n", path);
    return;
  }
  fclose(f);
  kiln_model* model = NULL;
  kiln_pulsed_runnable* pulsed = NULL;
  kiln_tensor *input = NULL, *expected = NULL;
  CHECK_OK(kiln_model_load(path, NULL, &model));
  CHECK_OK(kiln_tensor_read(in0, &input));
  CHECK_OK(kiln_tensor_read(out0, &expected));
  if (!model || !input || !expected) return;
  CHECK_FAILS(kiln_model_pulse(model, "x", &pulsed), KILN_ERROR,
              "--pulse 'x': expected a positive frame count");
  CHECK(pulsed == NULL);
  CHECK_FAILS(kiln_model_pulse(model, NULL, &pulsed), KILN_INVALID_ARGUMENT, "pulse is NULL");
  CHECK_OK(kiln_model_pulse(model, "8", &pulsed));
  if (!pulsed) return;
  int64_t pulse = 0, delay = -1, pulses = -1;
  size_t n_in = 0, n_out = 0;
  const char *in_name = NULL, *out_name = NULL, *model_in_name = NULL;
  CHECK_OK(kiln_pulsed_runnable_pulse(pulsed, &pulse));
  CHECK(pulse == 8);
  CHECK_OK(kiln_pulsed_runnable_delay(pulsed, 0, &delay));
  CHECK(delay == 0); /* what `kiln run --pulse 8` reports for this model */
  CHECK_FAILS(kiln_pulsed_runnable_delay(pulsed, 1, &delay), KILN_INVALID_ARGUMENT,
              "output 1 out of range");
  CHECK_OK(kiln_pulsed_runnable_num_inputs(pulsed, &n_in));
  CHECK_OK(kiln_pulsed_runnable_num_outputs(pulsed, &n_out));
  CHECK(n_in == 1 && n_out == 1);
  CHECK_OK(kiln_pulsed_runnable_input_name(pulsed, 0, &in_name));
  CHECK_OK(kiln_pulsed_runnable_output_name(pulsed, 0, &out_name));
  CHECK_OK(kiln_model_input_name(model, 0, &model_in_name));
  CHECK(in_name && model_in_name && strcmp(in_name, model_in_name) == 0);
  CHECK(out_name && strlen(out_name) > 0);
  CHECK_FAILS(kiln_pulsed_runnable_input_name(pulsed, 3, &in_name), KILN_INVALID_ARGUMENT,
              "input 3 out of range");

  kiln_stream_session* stream = NULL;
  CHECK_FAILS(kiln_stream_session_create(NULL, 1, &stream), KILN_INVALID_ARGUMENT,
              "pulsed is NULL");
  CHECK_OK(kiln_stream_session_create(pulsed, 1, &stream));
  if (!stream) return;
  const kiln_tensor* inputs[1] = {input};
  kiln_tensor* output = NULL;
  CHECK_OK(kiln_stream_session_run_whole(stream, inputs, 1, &output, 1));
  CHECK(output != NULL && close_to(output, expected));
  kiln_tensor_destroy(output);

  /* Pulse by pulse: input [1, C, T] cut into [1, C, 8], outputs [1, K, 8] against the reference
   * [1, K, T] frame by frame. */
  CHECK_OK(kiln_stream_session_reset(stream));
  const int64_t *in_shape, *want_shape;
  size_t rank, want_rank, nbytes;
  void *x, *want;
  CHECK_OK(kiln_tensor_shape(input, &in_shape, &rank));
  CHECK_OK(kiln_tensor_shape(expected, &want_shape, &want_rank));
  CHECK_OK(kiln_tensor_data(input, &x, &nbytes));
  CHECK_OK(kiln_tensor_data(expected, &want, &nbytes));
  CHECK(rank == 3 && want_rank == 3 && in_shape[2] % 8 == 0);
  if (rank != 3 || want_rank != 3) return;
  const int64_t channels = in_shape[1], frames = in_shape[2], classes = want_shape[1];
  int64_t chunk_shape[3] = {1, channels, 8};
  float* chunk = malloc((size_t)(channels * 8) * sizeof(float));
  long bad = 0;
  for (int64_t p = 0; p < frames / 8; p++) {
    for (int64_t c = 0; c < channels; c++)
      for (int64_t t = 0; t < 8; t++) chunk[c * 8 + t] = ((const float*)x)[c * frames + p * 8 + t];
    kiln_tensor* piece = NULL;
    CHECK_OK(kiln_tensor_create(KILN_F32, chunk_shape, 3, chunk,
                                (size_t)(channels * 8) * sizeof(float), &piece));
    const kiln_tensor* push_in[1] = {piece};
    output = NULL;
    CHECK_OK(kiln_stream_session_push(stream, push_in, 1, &output, 1));
    kiln_tensor_destroy(piece);
    if (!output) break;
    const int64_t* y_shape;
    size_t y_rank, y_bytes;
    void* y;
    CHECK_OK(kiln_tensor_shape(output, &y_shape, &y_rank));
    CHECK_OK(kiln_tensor_data(output, &y, &y_bytes));
    CHECK(y_rank == 3 && y_shape[1] == classes && y_shape[2] == 8);
    for (int64_t k = 0; k < classes && y_rank == 3; k++)
      for (int64_t t = 0; t < 8; t++) {
        float w = ((const float*)want)[k * frames + p * 8 + t];
        float g = ((const float*)y)[k * 8 + t];
        if (!(fabsf(g - w) <= 1e-5f + 1e-4f * fabsf(w))) bad++;
      }
    kiln_tensor_destroy(output);
  }
  CHECK(bad == 0);
  CHECK_OK(kiln_stream_session_pulses(stream, &pulses));
  CHECK(pulses == frames / 8);

  /* A push of 7 frames: the message says what a push must carry. */
  int64_t seven[3] = {1, channels, 7};
  kiln_tensor* short_piece = NULL;
  CHECK_OK(kiln_tensor_create(KILN_F32, seven, 3, NULL, 0, &short_piece));
  const kiln_tensor* short_in[1] = {short_piece};
  output = NULL;
  CHECK_FAILS(kiln_stream_session_push(stream, short_in, 1, &output, 1), KILN_ERROR,
              "must carry 8 frames along axis 2 per push");
  CHECK(output == NULL);
  CHECK_FAILS(kiln_stream_session_push(stream, inputs, 1, &output, 0), KILN_ERROR,
              "must carry 8 frames");
  CHECK_FAILS(kiln_stream_session_set_stream_length(stream, -1), KILN_ERROR,
              "stream length -1 is negative");
  CHECK_OK(kiln_stream_session_reset(stream));
  CHECK_OK(kiln_stream_session_pulses(stream, &pulses));
  CHECK(pulses == 0);
  kiln_tensor_destroy(short_piece);
  free(chunk);
  kiln_stream_session_destroy(stream);
  kiln_pulsed_runnable_destroy(pulsed);
  kiln_model_destroy(model);
  kiln_tensor_destroy(input);
  kiln_tensor_destroy(expected);
}

int main(int argc, char** argv) {
  test_tensors();
  test_load_errors();
  const char* models = getenv("KILN_SHARED_MODELS") ? getenv("KILN_SHARED_MODELS")
                       : argc > 1                   ? argv[1]
                                                    : NULL;
  char probe[4096];
  snprintf(probe, sizeof probe, "%s/kws_tdnn/model.onnx", models ? models : "");
  FILE* f = models ? fopen(probe, "rb") : NULL;
  if (f) {
    fclose(f);
    test_model(models);
    test_stream(models);
  }
  if (failures) {
    fprintf(stderr, "%d checks failed\n", failures);
    return 1;
  }
  if (!f) {
    printf(
        "C API: tensors and errors passed; model tests skipped: no %s (set "
        "KILN_SHARED_MODELS to the shared models folder)\n",
        probe);
    return 77;
  }
  printf("C API: all checks passed\n");
  return 0;
}
