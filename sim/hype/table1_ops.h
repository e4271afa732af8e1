#pragma once
// The ops that stand for the rows of Table 1 of He et al. (Hype-training, ICS 2021) when the
// device models are calibrated against it. The paper profiled each op type at a small, medium
// and large input "taken from the six models" (Sec. 3.2) but gives no shapes, and defines the
// classes for MatMul only; at the paper's batch (256) trainsim's size classes
// (sim/devices/size_class.h) put every convolution of the models in "large", so a row cannot be
// matched by class. The one figure of a row that measures its op's size is the bytes the V100
// moved, bandwidth x time. So a row stands for the op of its type, in one training iteration of
// the models trainsim has (AlexNet, VGG-16, ResNet-50, Inception-V3 on ImageNet, batch 256, fp32),
// whose compulsory bytes are nearest those (docs/hype.md#calibration): a real op of a real
// model. A row's bandwidth is then not an independent check of the GPU model; its time, power
// and IPC and the FPGA's figures are.
//
// MatMul, Conv2D, Conv2DBackpropFilter and Conv2DBackpropInput are ops of the iteration's DAG
// (sim/hype/op_dag.h). BiasAddGrad, Mul and Transpose are no ops of trainsim's lowering (folded
// into other ops, sim/hype/op_types.h); for comparison only, representatives are built:
//   BiasAddGrad: per layer with a bias, the sum of dY over batch and pixels (reads B x C x H x W
//                values; its C sums are too few to count);
//   Mul:         per parameter tensor (weights, biases, batch-norm scale and shift), the
//                weight-decay multiply of its gradient (TensorFlow's gradient of L2Loss);
//   Transpose:   per conv or dense weight tensor, a layout change (TensorFlow keeps filters as
//                HWIO, cuDNN runs OIHW): each value read and written once, no arithmetic.
#include <string>
#include <vector>

#include "sim/devices/size_class.h"
#include "sim/hype/op_types.h"
#include "sim/hype/table1.h"
#include "sim/workload/op.h"

namespace trainsim {

/// The models and batch the representatives come from.
struct Table1Workload {
  std::vector<std::string> networks = {"vgg16_imagenet", "resnet50_imagenet",
                                       "inceptionv3_imagenet", "alexnet_imagenet"};
  int batch = 256;  ///< the paper's for the CNNs (Sec. 5.1)
};

/// One op of a Table 1 type in one iteration of one of the models.
struct Table1Op {
  std::string network;
  PaperOpType type = PaperOpType::kMatMul;
  Op op;
  bool built = false;            ///< a representative of a folded type, not an op of the lowering
  std::string describe() const;  ///< "resnet50_imagenet layer 45: conv fw 256x256x14x14 ..."
};

/// The seven types of Table 1, in its row order.
const std::vector<PaperOpType>& table1_types();

/// Every op of the seven types in one iteration of each network, fp32 words.
std::vector<Table1Op> table1_ops(const Table1Workload& workload = {});

struct Table1Representative {
  PaperOpType type = PaperOpType::kMatMul;
  SizeClass size = SizeClass::kSmall;
  Table1Op op;           ///< the op of its type whose bytes are nearest the row's
  int of_type = 0;       ///< ops of the type in the iteration
  double row_bytes = 0;  ///< the bytes the row's GPU moved: bandwidth x time
  double op_bytes = 0;   ///< the op's compulsory bytes in fp32
};

/// The bytes the V100 moved for a row: its bandwidth times its time.
double table1_gpu_bytes(const HypeTable1Row& row);

/// The representative of each row of `table`: the op of the row's type whose compulsory bytes
/// are nearest (in ratio) the bytes the row's GPU moved; of equal ones, the first in the
/// iteration. UserError for a row of a type outside the seven.
std::vector<Table1Representative> table1_representatives(const std::vector<Table1Op>& ops,
                                                         const std::vector<HypeTable1Row>& table);

}  // namespace trainsim
