"""trainsim.from_torch: a PyTorch module as a trainsim network file (docs/interop.md).

The module is traced symbolically with torch.fx, which refuses what a network file cannot
hold: control flow that depends on the values of the data (an `if` on a tensor) raises here
instead of being frozen to the example's branch, as tracing by execution would. The traced
graph is exported to ONNX in memory (training mode, so dropout and batch normalization stay
nodes of their own; the batch dimension left free) and read by the same importer as
`trainsim import`, so one set of rules turns operators into layers, and the text returned is
the file that command writes. PyTorch comes from Debian's python3-torch.
"""
import io
import os
import warnings

from ._trainsim import import_onnx_bytes


def _first_line(error):
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def from_torch(model, example_input, name=None, path=None, force=False, opset=17):
    """The network file (YAML text) for `model`, sized by `example_input` (a tensor of one
    batch: float N x C x H x W or N x F, or int64 token ids N x S).

    name: the network's name (default: the module's class name, lower case).
    path: also write the text there; an existing file is kept unless force=True.
    opset: the ONNX opset of the export (17: LayerNormalization is a node of its own).
    Raises ValueError (trainsim.TrainsimError) naming the module or the node it cannot take.
    """
    import torch
    import torch.fx

    if not isinstance(model, torch.nn.Module):
        raise ValueError("from_torch: %r is not a torch.nn.Module" % (model,))
    if not isinstance(example_input, torch.Tensor):
        raise ValueError("from_torch: the example input must be one tensor (a batch), not %s"
                         % type(example_input).__name__)
    if example_input.dim() < 2:
        raise ValueError("from_torch: the example input has %d dimension(s); give a batch "
                         "(N x ...)" % example_input.dim())
    name = name or type(model).__name__.lower()
    if path is not None and os.path.exists(path) and not force:
        raise ValueError("from_torch: '%s' exists (force=True replaces it)" % path)
    try:
        traced = torch.fx.symbolic_trace(model)
    except Exception as e:  # fx raises TraceError, TypeError, ... naming the construct
        raise ValueError("from_torch: torch.fx cannot trace %s: %s (fx traces no branch or "
                         "slice that depends on a traced value: take position ids from the "
                         "input, e.g. ids.new_ones(ids.shape).cumsum(1) - 1, or mark the helper "
                         "with torch.fx.wrap; or export with torch.onnx.export and run "
                         "`trainsim import`)" % (type(model).__name__, _first_line(e))) from None
    was_training = model.training
    traced.train()
    buf = io.BytesIO()
    try:
        with warnings.catch_warnings():
            # The exporter's notes (batch norm's step counter dropped, ...) are not the user's.
            warnings.simplefilter("ignore")
            torch.onnx.export(traced, example_input, buf, input_names=["input"],
                              output_names=["logits"],
                              dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}},
                              opset_version=opset, training=torch.onnx.TrainingMode.TRAINING,
                              do_constant_folding=False)
    except Exception as e:
        raise ValueError("from_torch: PyTorch cannot export %s to ONNX: %s"
                         % (type(model).__name__, _first_line(e))) from None
    finally:
        model.train(was_training)
    text = import_onnx_bytes(buf.getvalue(), name, "torch module " + type(model).__name__)
    if path is not None:
        with open(path, "w") as f:
            f.write(text)
    return text
