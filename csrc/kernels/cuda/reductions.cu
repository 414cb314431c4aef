// The reductions' CUDA kernels (kernels/gpu/reductions.inc).
#include "kernels/cuda/Backend.cuh"
#include "kernels/gpu/reductions.inc"
