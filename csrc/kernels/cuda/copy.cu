// copy_'s CUDA kernel (kernels/gpu/copy.inc).
#include "kernels/cuda/Backend.cuh"
#include "kernels/gpu/copy.inc"
