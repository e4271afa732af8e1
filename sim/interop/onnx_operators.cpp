// onnx_operators(): what the ONNX importer takes, and as what (`trainsim import --help`,
// docs/interop.md's table says the same in more words).
#include "sim/interop/onnx_import.h"

namespace trainsim {

const std::vector<OnnxOperator>& onnx_operators() {
  static const std::vector<OnnxOperator> ops = {
      {"Conv", "conv2d", "2-D only; constant weight; symmetric pads; no dilation; equal strides"},
      {"ConvTranspose", "conv2d_transpose",
       "2-D only; constant weight; no groups or dilation; equal strides and pads on both axes"},
      {"Gemm", "dense", "constant B; transA = 0, alpha = beta = 1; a 2-D input"},
      {"MatMul with a constant weight",
       "dense on N x F, linear on N x S x C (with the bias of an Add of a constant vector that "
       "follows it)",
       "a 2-D weight"},
      {"MatMul of two layers' outputs",
       "batched_matmul (heads from the Reshape and Transpose "
       "that split the features; transpose_b from a Transpose of the second)",
       "N x S x C or N x G x S x C/G views of sequence layers; the first not transposed"},
      {"Gather", "embedding (from the input)",
       "a constant 2-D table along axis 0, indexed by the token ids or by constant ids (positions, "
       "segments) of the same length"},
      {"BatchNormalization", "batchnorm", "trainsim's epsilon is 1e-5 and momentum 0.1"},
      {"LayerNormalization", "layernorm", "over the last axis (the features) of N x S x C"},
      {"Relu", "relu", ""},
      {"LeakyRelu", "leaky_relu", ""},
      {"Sigmoid", "sigmoid", ""},
      {"Tanh", "tanh", ""},
      {"Gelu (opset 20)", "gelu", "either approximation"},
      {"Div, Erf, Add, Mul, Mul (GELU)", "gelu",
       "x * (1 + erf(x / sqrt 2)) * 0.5, as PyTorch exports nn.GELU"},
      {"Div or Mul by a one-value constant", "no layer: folded into the layer before it",
       "attention's 1 / sqrt(d) scale; its element-wise pass is not timed"},
      {"Add", "add",
       "two layers' outputs of one shape, or one repeated over the batch (a position "
       "embedding); no other broadcasting, no constants"},
      {"Concat", "concat", "channels (axis 1) only"},
      {"MaxPool", "maxpool2d", "2-D; symmetric pads; no dilation, no ceil_mode; equal strides"},
      {"AveragePool", "avgpool2d", "as MaxPool"},
      {"GlobalAveragePool", "global_avgpool", ""},
      {"ReduceMean", "global_avgpool",
       "over axes 2 and 3 with keepdims = 1, or over the positions (axis 1) of N x S x C with "
       "keepdims = 0"},
      {"Flatten", "flatten", "axis 1 only"},
      {"Reshape", "flatten, or no layer",
       "N x C x H x W to N x CHW (flatten); N x S x C to N x S x G x C/G and back (the head "
       "split, read in place)"},
      {"Transpose", "no layer: a view read in place, or a constant folded",
       "the head split's (0 2 1 3), keys' (0 2 3 1) and (0 1 3 2), (0 2 1) of N x S x C; any "
       "permutation of a constant"},
      {"Flatten or Reshape of N x S x C to N x SC", "no layer", "the model's output only"},
      {"Dropout", "dropout (training-mode exports; inference exports have none)", ""},
      {"Softmax", "softmax",
       "the model's output, or the last axis of attention scores (N x G x S x S)"},
      {"Sigmoid at the output",
       "sigmoid, ending the network (one value: two classes, binary "
       "cross-entropy)",
       ""},
      {"LogSoftmax", "softmax (the loss is the same cross-entropy)", "the model's output only"},
      {"Identity", "passes its input on", ""},
      {"Pad", "the padding of the pooling or convolution that reads it",
       "zeros, height and width only, the same before and after"},
      {"Constant, Shape, Gather, Unsqueeze, Concat, Slice, Expand, Equal, Where, ... on integer "
       "or boolean tensors",
       "shape and index arithmetic: folded by shape inference, no layer", ""},
  };
  return ops;
}

}  // namespace trainsim
