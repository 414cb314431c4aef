#include "core/Device.h"

#include <cctype>

#include "core/Error.h"

namespace torchlite {

const char* device_type_name(DeviceType t) { return t == DeviceType::CPU ? "cpu" : "cuda"; }

std::string to_string(Device d) {
  std::string s = device_type_name(d.type);
  if (d.index >= 0) s += ":" + std::to_string(d.index);
  return s;
}

Device parse_device(const std::string& s) {
  std::string type = s, index;
  auto colon = s.find(':');
  if (colon != std::string::npos) {
    type = s.substr(0, colon);
    index = s.substr(colon + 1);
  }
  Device d;
  if (type == "cpu") {
    d.type = DeviceType::CPU;
  } else if (type == "cuda") {
    d.type = DeviceType::CUDA;
  } else {
    TL_ERROR("Expected one of cpu, cuda device type at start of device string: ", s);
  }
  if (colon != std::string::npos) {
    bool ok = !index.empty() && index.size() <= 3;
    for (char c : index) ok = ok && std::isdigit(static_cast<unsigned char>(c));
    TL_CHECK(ok && std::stoi(index) <= 127, "Invalid device string: '", s, "'");
    d.index = static_cast<int8_t>(std::stoi(index));
  }
  return d;
}

}  // namespace torchlite
