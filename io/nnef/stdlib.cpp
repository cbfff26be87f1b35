// The operations kiln's NNEF reader knows, as NNEF fragment declarations (parameters and
// defaults) and compound definitions. Declarations without a body are primitives implemented in
// io/nnef/primitives.cpp; fragments with a body are expanded. The kiln_core_* fragments are
// kiln's extension registry (documented in docs/nnef.md).
#include "io/nnef/builder.h"
#include "io/nnef/parser.h"

namespace kiln::nnef {

namespace {

const char* kStdlib = R"NNEF(
fragment external<? = scalar>( shape: integer[] ) -> ( output: tensor<?> );
fragment variable<? = scalar>( shape: integer[], label: string ) -> ( output: tensor<?> );
fragment constant<? = scalar>( shape: integer[], value: ?[] ) -> ( output: tensor<?> );

fragment copy<?>( x: tensor<?> ) -> ( y: tensor<?> );
fragment neg( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment rcp( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment exp( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment log( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment sin( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment cos( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment tan( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment asin( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment acos( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment atan( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment sinh( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment cosh( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment asinh( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment acosh( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment atanh( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment abs( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment sign( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment not( x: tensor<logical> ) -> ( y: tensor<logical> );
fragment floor( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment ceil( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment round( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment sqrt( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment tanh( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment sigmoid( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment relu( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment elu( x: tensor<scalar>, alpha: scalar = 1.0 ) -> ( y: tensor<scalar> );
fragment leaky_relu( x: tensor<scalar>, alpha: scalar ) -> ( y: tensor<scalar> );
fragment prelu( x: tensor<scalar>, alpha: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment softplus( x: tensor<scalar> ) -> ( y: tensor<scalar> );

fragment add( x: tensor<scalar>, y: tensor<scalar> ) -> ( z: tensor<scalar> );
fragment sub( x: tensor<scalar>, y: tensor<scalar> ) -> ( z: tensor<scalar> );
fragment mul( x: tensor<scalar>, y: tensor<scalar> ) -> ( z: tensor<scalar> );
fragment div( x: tensor<scalar>, y: tensor<scalar> ) -> ( z: tensor<scalar> );
fragment pow( x: tensor<scalar>, y: tensor<scalar> ) -> ( z: tensor<scalar> );
fragment lt( x: tensor<scalar>, y: tensor<scalar> ) -> ( z: tensor<logical> );
fragment gt( x: tensor<scalar>, y: tensor<scalar> ) -> ( z: tensor<logical> );
fragment le( x: tensor<scalar>, y: tensor<scalar> ) -> ( z: tensor<logical> );
fragment ge( x: tensor<scalar>, y: tensor<scalar> ) -> ( z: tensor<logical> );
fragment eq( x: tensor<scalar>, y: tensor<scalar> ) -> ( z: tensor<logical> );
fragment ne( x: tensor<scalar>, y: tensor<scalar> ) -> ( z: tensor<logical> );
fragment and( x: tensor<logical>, y: tensor<logical> ) -> ( z: tensor<logical> );
fragment or( x: tensor<logical>, y: tensor<logical> ) -> ( z: tensor<logical> );
fragment min( x: tensor<scalar>, y: tensor<scalar> ) -> ( z: tensor<scalar> );
fragment max( x: tensor<scalar>, y: tensor<scalar> ) -> ( z: tensor<scalar> );
fragment select<?>( condition: tensor<logical>, true_value: tensor<?>, false_value: tensor<?> )
    -> ( output: tensor<?> );
fragment clamp( x: tensor<scalar>, a: tensor<scalar>, b: tensor<scalar> ) -> ( y: tensor<scalar> );

fragment conv( input: tensor<scalar>, filter: tensor<scalar>, bias: tensor<scalar> = 0.0,
               border: string = 'constant', padding: (integer, integer)[] = [],
               stride: integer[] = [], dilation: integer[] = [], groups: integer = 1 )
    -> ( output: tensor<scalar> );
fragment deconv( input: tensor<scalar>, filter: tensor<scalar>, bias: tensor<scalar> = 0.0,
                 border: string = 'constant', padding: (integer, integer)[] = [],
                 stride: integer[] = [], dilation: integer[] = [],
                 output_shape: integer[] = [], groups: integer = 1 )
    -> ( output: tensor<scalar> );
fragment max_pool( input: tensor<scalar>, size: integer[], border: string = 'constant',
                   padding: (integer, integer)[] = [], stride: integer[] = [],
                   dilation: integer[] = [] ) -> ( output: tensor<scalar> );
fragment avg_pool( input: tensor<scalar>, size: integer[], border: string = 'constant',
                   padding: (integer, integer)[] = [], stride: integer[] = [],
                   dilation: integer[] = [] ) -> ( output: tensor<scalar> );

fragment sum_reduce( input: tensor<scalar>, axes: integer[], normalize: logical = false )
    -> ( output: tensor<scalar> );
fragment mean_reduce( input: tensor<scalar>, axes: integer[] ) -> ( output: tensor<scalar> );
fragment max_reduce( input: tensor<scalar>, axes: integer[] ) -> ( output: tensor<scalar> );
fragment min_reduce( input: tensor<scalar>, axes: integer[] ) -> ( output: tensor<scalar> );
fragment argmax_reduce( input: tensor<scalar>, axes: integer[] ) -> ( output: tensor<integer> );
fragment argmin_reduce( input: tensor<scalar>, axes: integer[] ) -> ( output: tensor<integer> );

fragment reshape<?>( input: tensor<?>, shape: integer[], axis_start: integer = 0,
                     axis_count: integer = -1 ) -> ( output: tensor<?> );
fragment squeeze<?>( input: tensor<?>, axes: integer[] ) -> ( output: tensor<?> );
fragment unsqueeze<?>( input: tensor<?>, axes: integer[] ) -> ( output: tensor<?> );
fragment transpose<?>( input: tensor<?>, axes: integer[] ) -> ( output: tensor<?> );
fragment concat<?>( values: tensor<?>[], axis: integer ) -> ( value: tensor<?> );
fragment split<?>( value: tensor<?>, axis: integer, ratios: integer[] ) -> ( values: tensor<?>[] );
fragment slice<?>( input: tensor<?>, axes: integer[], begin: integer[], end: integer[],
                   stride: integer[] = [] ) -> ( output: tensor<?> );
fragment pad( input: tensor<scalar>, padding: (integer, integer)[], border: string = 'constant',
              value: scalar = 0.0 ) -> ( output: tensor<scalar> );
fragment tile<?>( input: tensor<?>, repeats: integer[] ) -> ( output: tensor<?> );

fragment matmul( A: tensor<scalar>, B: tensor<scalar>, transposeA: logical = false,
                 transposeB: logical = false ) -> ( C: tensor<scalar> );
fragment softmax( x: tensor<scalar>, axes: integer[] = [1] ) -> ( y: tensor<scalar> );
fragment batch_normalization( input: tensor<scalar>, mean: tensor<scalar>,
                              variance: tensor<scalar>, offset: tensor<scalar>,
                              scale: tensor<scalar>, epsilon: scalar )
    -> ( output: tensor<scalar> );

fragment sqr( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { y = x * x; }
fragment rsqrt( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { y = rcp(sqrt(x)); }
fragment rsqr( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { y = rcp(x * x); }
fragment log2( x: tensor<scalar> ) -> ( y: tensor<scalar> ) { y = log(x) / 0.6931471805599453; }
fragment linear( input: tensor<scalar>, filter: tensor<scalar>, bias: tensor<scalar> = 0.0 )
    -> ( output: tensor<scalar> )
{
    output = add(matmul(input, filter, transposeB = true), bias);
}

fragment tract_core_external<?>( shape: integer[], datum_type: string = 'f32' )
    -> ( output: tensor<?> );
fragment tract_core_gather<?>( input: tensor<?>, indices: tensor<integer>, axis: integer,
                               datum_type: string = '' ) -> ( output: tensor<?> );
fragment tract_core_cast<?>( input: tensor<?>, to: string ) -> ( output: tensor<?> );
fragment tract_core_shape_of<?>( input: tensor<?> ) -> ( output: tensor<integer> );
fragment tract_core_erf( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment tract_core_softmax( x: tensor<scalar>, axes: integer[], exp: string = '' )
    -> ( y: tensor<scalar> );
fragment tract_core_einsum<?>( inputs: tensor<?>[], expr: string, acc: string = '',
                               output: string = '' ) -> ( output: tensor<?> );
fragment tract_core_range<?>( start: tensor<?>, end: tensor<?>, step: tensor<?> )
    -> ( output: tensor<?> );

fragment kiln_core_gather<?>( input: tensor<?>, indices: tensor<integer>, axis: integer )
    -> ( output: tensor<?> );
fragment kiln_core_gather_elements<?>( input: tensor<?>, indices: tensor<integer>, axis: integer )
    -> ( output: tensor<?> );
fragment kiln_core_cast<?>( input: tensor<?>, to: string, saturate: logical = true,
                           round_mode: string = 'up' ) -> ( output: tensor<?> );
fragment kiln_core_erf( x: tensor<scalar> ) -> ( y: tensor<scalar> );
fragment kiln_core_einsum<?>( inputs: tensor<?>[], equation: string ) -> ( output: tensor<?> );
fragment kiln_core_range<?>( start: tensor<?>, limit: tensor<?>, delta: tensor<?> )
    -> ( output: tensor<?> );
fragment kiln_core_unary( x: tensor<scalar>, op: string, alpha: scalar = 0.0, beta: scalar = 0.0,
                          gamma: scalar = 0.0, detect_positive: logical = true,
                          detect_negative: logical = true ) -> ( y: tensor<scalar> );
fragment kiln_core_binary( x: tensor<scalar>, y: tensor<scalar>, op: string )
    -> ( z: tensor<scalar> );
fragment kiln_core_lstm( x: tensor<scalar>, w: tensor<scalar>, r: tensor<scalar>,
                        b: tensor<scalar> = [], sequence_lens: tensor<integer> = [],
                        initial_h: tensor<scalar> = [], initial_c: tensor<scalar> = [],
                        p: tensor<scalar> = [], direction: string = 'forward',
                        hidden_size: integer = 0, activations: string[] = [],
                        activation_alpha: scalar[] = [], activation_beta: scalar[] = [],
                        clip: scalar = 0.0, input_forget: logical = false, layout: integer = 0,
                        outputs: integer = 3 )
    -> ( values: tensor<scalar>[] );
fragment kiln_core_gru( x: tensor<scalar>, w: tensor<scalar>, r: tensor<scalar>,
                        b: tensor<scalar> = [], sequence_lens: tensor<integer> = [],
                        initial_h: tensor<scalar> = [], direction: string = 'forward',
                        hidden_size: integer = 0, activations: string[] = [],
                        activation_alpha: scalar[] = [], activation_beta: scalar[] = [],
                        clip: scalar = 0.0, linear_before_reset: logical = false, layout: integer = 0,
                        outputs: integer = 2 )
    -> ( values: tensor<scalar>[] );
fragment kiln_core_rnn( x: tensor<scalar>, w: tensor<scalar>, r: tensor<scalar>,
                        b: tensor<scalar> = [], sequence_lens: tensor<integer> = [],
                        initial_h: tensor<scalar> = [], direction: string = 'forward',
                        hidden_size: integer = 0, activations: string[] = [],
                        activation_alpha: scalar[] = [], activation_beta: scalar[] = [],
                        clip: scalar = 0.0, layout: integer = 0,
                        outputs: integer = 2 )
    -> ( values: tensor<scalar>[] );
fragment kiln_pulse_lstm( x: tensor<scalar>, w: tensor<scalar>, r: tensor<scalar>,
                        b: tensor<scalar> = [], sequence_lens: tensor<integer> = [],
                        initial_h: tensor<scalar> = [], initial_c: tensor<scalar> = [],
                        p: tensor<scalar> = [], direction: string = 'forward',
                        hidden_size: integer = 0, activations: string[] = [],
                        activation_alpha: scalar[] = [], activation_beta: scalar[] = [],
                        clip: scalar = 0.0, input_forget: logical = false, layout: integer = 0,
                        outputs: integer = 3, warmup: integer = 0 )
    -> ( values: tensor<scalar>[] );
fragment kiln_pulse_gru( x: tensor<scalar>, w: tensor<scalar>, r: tensor<scalar>,
                        b: tensor<scalar> = [], sequence_lens: tensor<integer> = [],
                        initial_h: tensor<scalar> = [], direction: string = 'forward',
                        hidden_size: integer = 0, activations: string[] = [],
                        activation_alpha: scalar[] = [], activation_beta: scalar[] = [],
                        clip: scalar = 0.0, linear_before_reset: logical = false, layout: integer = 0,
                        outputs: integer = 2, warmup: integer = 0 )
    -> ( values: tensor<scalar>[] );
fragment kiln_pulse_rnn( x: tensor<scalar>, w: tensor<scalar>, r: tensor<scalar>,
                        b: tensor<scalar> = [], sequence_lens: tensor<integer> = [],
                        initial_h: tensor<scalar> = [], direction: string = 'forward',
                        hidden_size: integer = 0, activations: string[] = [],
                        activation_alpha: scalar[] = [], activation_beta: scalar[] = [],
                        clip: scalar = 0.0, layout: integer = 0,
                        outputs: integer = 2, warmup: integer = 0 )
    -> ( values: tensor<scalar>[] );
fragment tract_pulse_delay( input: tensor<scalar>, axis: integer, delay: integer,
                           overlap: integer ) -> ( output: tensor<scalar> );
fragment kiln_pulse_delay( input: tensor<scalar>, axis: integer, delay: integer, overlap: integer,
                          init: scalar = 0.0 ) -> ( output: tensor<scalar> );
fragment kiln_pulse_pad( input: tensor<scalar>, stream_length: tensor<integer> = [],
                        axis: integer, before: integer, after: integer, begin_input: integer,
                        end_input: string, symbol: string, value: scalar = 0.0 )
    -> ( output: tensor<scalar> );
fragment kiln_core_loop( trip_count: tensor<integer> = [], condition: tensor<logical> = [],
                        carried: tensor<scalar>[], captured: tensor<scalar>[], body: string,
                        outputs: integer ) -> ( results: tensor<scalar>[] );
fragment kiln_audio_decode_wav<?>( input: tensor<?>, desired_channels: integer = -1,
                                   desired_samples: integer = -1 )
    -> ( results: tensor<scalar>[] );
fragment kiln_audio_spectrogram( input: tensor<scalar>, window_size: integer, stride: integer,
                                 magnitude_squared: logical = false ) -> ( output: tensor<scalar> );
fragment kiln_audio_mfcc( spectrogram: tensor<scalar>, sample_rate: tensor<integer>,
                          upper_frequency_limit: scalar = 4000.0,
                          lower_frequency_limit: scalar = 20.0,
                          filterbank_channel_count: integer = 40,
                          dct_coefficient_count: integer = 13 ) -> ( output: tensor<scalar> );
fragment kiln_core_quantize_linear( x: tensor<scalar>, scale: tensor<scalar>,
                                   zero_point: tensor<integer> = [], axis: integer = 1,
                                   output_type: string = 'u8', block_size: integer = 0,
                                   saturate: logical = true, precision: string = '' )
    -> ( y: tensor<integer> );
fragment kiln_core_dequantize_linear( x: tensor<integer>, scale: tensor<scalar>,
                                     zero_point: tensor<integer> = [], axis: integer = 1,
                                     block_size: integer = 0, output_type: string = '' )
    -> ( y: tensor<scalar> );
fragment kiln_core_qlinear_conv( x: tensor<integer>, x_scale: tensor<scalar>,
                                x_zero_point: tensor<integer>, w: tensor<integer>,
                                w_scale: tensor<scalar>, w_zero_point: tensor<integer>,
                                y_scale: tensor<scalar>, y_zero_point: tensor<integer>,
                                bias: tensor<integer> = [], auto_pad: string = 'NOTSET',
                                kernel_shape: integer[] = [], strides: integer[] = [],
                                dilations: integer[] = [], pads: integer[] = [],
                                group: integer = 1 ) -> ( y: tensor<integer> );
fragment kiln_core_qlinear_matmul( a: tensor<integer>, a_scale: tensor<scalar>,
                                  a_zero_point: tensor<integer>, b: tensor<integer>,
                                  b_scale: tensor<scalar>, b_zero_point: tensor<integer>,
                                  y_scale: tensor<scalar>, y_zero_point: tensor<integer> )
    -> ( y: tensor<integer> );
fragment kiln_core_gemm( a: tensor<scalar>, b: tensor<scalar>, c: tensor<scalar> = [],
                        alpha: scalar = 1.0, beta: scalar = 1.0, trans_a: logical = false,
                        trans_b: logical = false ) -> ( y: tensor<scalar> );
fragment kiln_core_if( condition: tensor<logical>, values: tensor<scalar>[], then_branch: string,
                      else_branch: string, outputs: integer, assumed: string = '' )
    -> ( results: tensor<scalar>[] );
)NNEF";

}  // namespace

const std::vector<Fragment>& stdlib_fragments() {
  static const std::vector<Fragment> fragments =
      parse_document(kStdlib, "kiln NNEF stdlib", false).fragments;
  return fragments;
}

}  // namespace kiln::nnef
