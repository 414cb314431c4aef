#pragma once
#include <cstdint>
#include <string>

namespace torchlite {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
constexpr int kNumDeviceTypes = 2;

struct Device {
  DeviceType type = DeviceType::CPU;
  int8_t index = -1;  // -1: the current device of that type
  Device() = default;
  constexpr Device(DeviceType t, int8_t i = -1) : type(t), index(i) {}
  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
};

const char* device_type_name(DeviceType t);  // "cpu", "cuda"
std::string to_string(Device d);              // "cpu", "cuda:0"
Device parse_device(const std::string& s);    // throws on a bad string

}  // namespace torchlite
