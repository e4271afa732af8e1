"""trainsim: train a network for real while a simulated accelerator times it.

The package's native half (_trainsim, built from python/trainsim_module.cpp) runs experiments,
times ops and imports ONNX models; from_torch (torch_import.py) brings a PyTorch module in.
  PYTHONPATH=build/python python3 -c "import trainsim; print(trainsim.run(...)['cycles'])"
"""
from ._trainsim import (TrainsimError, compare, import_onnx_bytes, layer,  # noqa: F401
                        resolved_config, run, train)
from .torch_import import from_torch  # noqa: F401
