/* kiln's C API: load a model, give its input facts, optimize it, run it from sessions.
 *
 * Every handle is opaque and freed by its kiln_*_destroy function (NULL is accepted). Every
 * function that can fail returns a kiln_status; on failure the message (the same the `kiln`
 * command prints) is available from kiln_last_error() in the same thread until the next failing
 * call of that thread. Output pointers are written only on success. Strings returned by
 * kiln_*_name / kiln_*_fact live as long as their handle.
 *
 * A kiln_runnable is immutable: share it between threads, one kiln_session per thread.
 *
 *   kiln_model* model; kiln_runnable* runnable; kiln_session* session;
 *   if (kiln_model_load("model.onnx", NULL, &model)) { puts(kiln_last_error()); return 1; }
 *   kiln_model_set_input_fact(model, "1,3,224,224,f32");
 *   kiln_model_optimize(model, &runnable);
 *   kiln_session_create(runnable, 0, &session);
 *   kiln_tensor* out[1];
 *   kiln_session_run(session, inputs, 1, out, 1);
 */
#ifndef KILN_KILN_H
#define KILN_KILN_H

#include <stddef.h>
#include <stdint.h>

#include "kiln/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kiln_status {
  KILN_OK = 0,
  KILN_ERROR = 1,            /* the model or the data: see kiln_last_error() */
  KILN_INVALID_ARGUMENT = 2, /* a NULL handle or pointer, an index out of range */
} kiln_status;

/* Values match kiln::api::DataType. */
typedef enum kiln_datum_type {
  KILN_F32 = 1,
  KILN_F64 = 2,
  KILN_F16 = 3,
  KILN_I8 = 4,
  KILN_I16 = 5,
  KILN_I32 = 6,
  KILN_I64 = 7,
  KILN_U8 = 8,
  KILN_U16 = 9,
  KILN_U32 = 10,
  KILN_U64 = 11,
  KILN_BOOL = 12,
  /* Not a type: makes the enum int-sized, so any int a caller passes is a valid value to check
   * (C++ reading 99 from an enum whose enumerators fit in 4 bits is undefined behaviour). */
  KILN_DATUM_TYPE_FORCE_INT = 0x7fffffff
} kiln_datum_type;

typedef struct kiln_model kiln_model;
typedef struct kiln_runnable kiln_runnable;
typedef struct kiln_session kiln_session;
typedef struct kiln_tensor kiln_tensor;
typedef struct kiln_pulsed_runnable kiln_pulsed_runnable;
typedef struct kiln_stream_session kiln_stream_session;

/* The message of this thread's last failure ("" when none). */
KILN_API const char* kiln_last_error(void);
/* "0.1.0". */
KILN_API const char* kiln_version(void);
/* "f32", "i64"...; NULL for an unknown code. Bytes per element: 0 for an unknown code. */
KILN_API const char* kiln_datum_type_name(kiln_datum_type dt);
KILN_API size_t kiln_datum_type_size(kiln_datum_type dt);

/* --- models as loaded ------------------------------------------------------------------- */
/* format: "onnx", "tf", "nnef" or NULL (from the file name). */
KILN_API kiln_status kiln_model_load(const char* path, const char* format, kiln_model** out);
/* The bytes of a .onnx file, a GraphDef or an NNEF .tgz/.tar (format required). */
KILN_API kiln_status kiln_model_load_memory(const void* data, size_t size, const char* format,
                                            kiln_model** out);
KILN_API void kiln_model_destroy(kiln_model* model);
KILN_API kiln_status kiln_model_num_inputs(const kiln_model* model, size_t* out);
KILN_API kiln_status kiln_model_num_outputs(const kiln_model* model, size_t* out);
KILN_API kiln_status kiln_model_input_name(const kiln_model* model, size_t index, const char** out);
KILN_API kiln_status kiln_model_output_name(const kiln_model* model, size_t index,
                                            const char** out);
/* The fact of an input as text: "1,S,40,f32". */
KILN_API kiln_status kiln_model_input_fact(const kiln_model* model, size_t index, const char** out);
/* One input fact in the CLI's -i syntax: "name:1,3,224,224,f32", "sr:i64=16000" (a constant),
 * or "1,3,224,224,f32" for the next input by position. */
KILN_API kiln_status kiln_model_set_input_fact(kiln_model* model, const char* spec);
/* Writes the decluttered model as NNEF (.tgz/.tar archive or directory), as `kiln convert`. */
KILN_API kiln_status kiln_model_save_nnef(const kiln_model* model, const char* path);
/* Declutters, optimizes and plans (the model is unchanged). */
KILN_API kiln_status kiln_model_optimize(const kiln_model* model, kiln_runnable** out);
/* Typed (unoptimized) when optimize is 0. */
KILN_API kiln_status kiln_model_prepare(const kiln_model* model, int optimize, kiln_runnable** out);

/* --- runnable (optimized) models -------------------------------------------------------- */
KILN_API void kiln_runnable_destroy(kiln_runnable* runnable);
KILN_API kiln_status kiln_runnable_num_inputs(const kiln_runnable* runnable, size_t* out);
KILN_API kiln_status kiln_runnable_num_outputs(const kiln_runnable* runnable, size_t* out);
KILN_API kiln_status kiln_runnable_input_name(const kiln_runnable* runnable, size_t index,
                                              const char** out);
KILN_API kiln_status kiln_runnable_output_name(const kiln_runnable* runnable, size_t index,
                                               const char** out);
KILN_API kiln_status kiln_runnable_input_fact(const kiln_runnable* runnable, size_t index,
                                              const char** out);
KILN_API kiln_status kiln_runnable_output_fact(const kiln_runnable* runnable, size_t index,
                                               const char** out);

/* --- sessions --------------------------------------------------------------------------- */
/* threads <= 0: the physical cores. */
KILN_API kiln_status kiln_session_create(const kiln_runnable* runnable, int threads,
                                         kiln_session** out);
KILN_API void kiln_session_destroy(kiln_session* session);
/* Inputs in the model's order; writes one new tensor per model output into outputs[0..n). */
KILN_API kiln_status kiln_session_run(kiln_session* session, const kiln_tensor* const* inputs,
                                      size_t num_inputs, kiln_tensor** outputs, size_t num_outputs);
/* Inputs in the model's order; writes output i into outputs[i], an existing tensor of exactly
 * the output's type and shape (kiln_tensor_create or kiln_tensor_wrap). No copy when the
 * layouts match: wrapped inputs are read in place, and an output is computed straight into its
 * tensor unless it is a view of an input or a constant, or its memory overlaps another
 * argument's (then it is copied there after the run). */
KILN_API kiln_status kiln_session_run_into(kiln_session* session, const kiln_tensor* const* inputs,
                                           size_t num_inputs, kiln_tensor* const* outputs,
                                           size_t num_outputs);
/* Runs `runs` times; *out is a JSON text (valid until the next profile call on this session):
 * {"total_ms": mean ms per run, "nodes": [{"name", "op", "ms"}, ...] slowest first}. */
KILN_API kiln_status kiln_session_profile(kiln_session* session, const kiln_tensor* const* inputs,
                                          size_t num_inputs, int runs, const char** out);

/* --- streaming (docs/streaming.md), as `kiln run --pulse 8` -------------------------------
 * kiln_model_pulse makes a pulsed model from a model whose input facts are symbolic along the
 * stream axis ("1,40,S,f32"): pulse is "8" (P frames per push along the only symbol) or "S=8".
 * A kiln_pulsed_runnable is immutable (share it between threads, one stream session each). */
KILN_API kiln_status kiln_model_pulse(const kiln_model* model, const char* pulse,
                                      kiln_pulsed_runnable** out);
KILN_API void kiln_pulsed_runnable_destroy(kiln_pulsed_runnable* pulsed);
/* Frames of each streaming input per push. */
KILN_API kiln_status kiln_pulsed_runnable_pulse(const kiln_pulsed_runnable* pulsed, int64_t* out);
/* Frames output `output` lags the whole-input model by. */
KILN_API kiln_status kiln_pulsed_runnable_delay(const kiln_pulsed_runnable* pulsed, size_t output,
                                                int64_t* out);
KILN_API kiln_status kiln_pulsed_runnable_num_inputs(const kiln_pulsed_runnable* pulsed,
                                                     size_t* out);
KILN_API kiln_status kiln_pulsed_runnable_num_outputs(const kiln_pulsed_runnable* pulsed,
                                                      size_t* out);
KILN_API kiln_status kiln_pulsed_runnable_input_name(const kiln_pulsed_runnable* pulsed,
                                                     size_t index, const char** out);
KILN_API kiln_status kiln_pulsed_runnable_output_name(const kiln_pulsed_runnable* pulsed,
                                                      size_t index, const char** out);
/* threads <= 0: the physical cores. */
KILN_API kiln_status kiln_stream_session_create(const kiln_pulsed_runnable* pulsed, int threads,
                                                kiln_stream_session** out);
KILN_API void kiln_stream_session_destroy(kiln_stream_session* stream);
/* P frames of each input in (the model's order), P frames of each output out (new tensors),
 * delay(i) frames late. */
KILN_API kiln_status kiln_stream_session_push(kiln_stream_session* stream,
                                              const kiln_tensor* const* inputs, size_t num_inputs,
                                              kiln_tensor** outputs, size_t num_outputs);
/* Resets, then pushes the whole inputs pulse by pulse: the whole-input model's outputs. */
KILN_API kiln_status kiln_stream_session_run_whole(kiln_stream_session* stream,
                                                   const kiln_tensor* const* inputs,
                                                   size_t num_inputs, kiln_tensor** outputs,
                                                   size_t num_outputs);
/* Back to the stream start. */
KILN_API kiln_status kiln_stream_session_reset(kiln_stream_session* stream);
/* The stream's length in frames once known (the padding at its end needs it). */
KILN_API kiln_status kiln_stream_session_set_stream_length(kiln_stream_session* stream,
                                                           int64_t frames);
/* Pushes since the start. */
KILN_API kiln_status kiln_stream_session_pulses(const kiln_stream_session* stream, int64_t* out);

/* --- tensors ---------------------------------------------------------------------------- */
/* A tensor holding a copy of `nbytes` bytes at `data` (exactly the shape's size; data may be
 * NULL for zeros). */
KILN_API kiln_status kiln_tensor_create(kiln_datum_type dt, const int64_t* shape, size_t rank,
                                        const void* data, size_t nbytes, kiln_tensor** out);
/* A tensor over the caller's memory, no copy: `nbytes` exactly the shape's size, `data`
 * aligned to the element size. The caller keeps it alive while the tensor is used; kiln never
 * frees it and never writes it as an input (kiln_session_run_into writes outputs into it). */
KILN_API kiln_status kiln_tensor_wrap(kiln_datum_type dt, const int64_t* shape, size_t rank,
                                      void* data, size_t nbytes, kiln_tensor** out);
/* Reads a .npy or .pb (ONNX TensorProto) file. */
KILN_API kiln_status kiln_tensor_read(const char* path, kiln_tensor** out);
KILN_API void kiln_tensor_destroy(kiln_tensor* tensor);
KILN_API kiln_status kiln_tensor_datum_type(const kiln_tensor* tensor, kiln_datum_type* out);
/* *shape points at `*rank` dims, valid as long as the tensor. */
KILN_API kiln_status kiln_tensor_shape(const kiln_tensor* tensor, const int64_t** shape,
                                       size_t* rank);
/* The elements, valid (and writable) as long as the tensor. */
KILN_API kiln_status kiln_tensor_data(const kiln_tensor* tensor, void** data, size_t* nbytes);

#ifdef __cplusplus
}
#endif

#endif /* KILN_KILN_H */
