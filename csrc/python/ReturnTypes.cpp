#include "python/ReturnTypes.h"

#include <structmember.h>

#include <map>
#include <string>
#include <vector>

#include "core/Error.h"

namespace torchlite::python {

namespace {

struct ReturnTypeInfo {
  PyTypeObject* type;
  std::vector<std::string> fields;
};

std::map<std::string, ReturnTypeInfo>& registry() {
  static auto* r = new std::map<std::string, ReturnTypeInfo>();  // lives as long as the types
  return *r;
}

// PyTorch's repr: torch.return_types.max(\nvalues=tensor(...),\nindices=tensor(...))
PyObject* return_type_repr(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  std::string text = std::string(type->tp_name) + "(";
  Py_ssize_t n = PyTuple_GET_SIZE(self);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* r = PyObject_Repr(PyTuple_GET_ITEM(self, i));
    if (!r) return nullptr;
    const char* s = PyUnicode_AsUTF8(r);
    if (!s) {
      Py_DECREF(r);
      return nullptr;
    }
    text += std::string("\n") + type->tp_members[i].name + "=" + s + (i + 1 < n ? "," : "");
    Py_DECREF(r);
  }
  text += ")";
  return PyUnicode_FromStringAndSize(text.data(), static_cast<Py_ssize_t>(text.size()));
}

}  // namespace

PyTypeObject* return_type(PyObject* module, const char* name, std::initializer_list<const char*> fields) {
  auto& reg = registry();
  auto it = reg.find(name);
  if (it != reg.end()) {
    TL_CHECK(it->second.fields == std::vector<std::string>(fields.begin(), fields.end()),
             "return_types.", name, " registered twice with different fields");
    return it->second.type;
  }
  // PyStructSequence keeps pointers to the names and the field table: they live as long as the process.
  auto* full_name = new std::string(std::string("torchlite.return_types.") + name);
  auto* members = new PyStructSequence_Field[fields.size() + 1];
  size_t i = 0;
  for (const char* f : fields) members[i++] = {f, nullptr};
  members[i] = {nullptr, nullptr};
  auto* desc = new PyStructSequence_Desc{full_name->c_str(), nullptr, members, static_cast<int>(fields.size())};
  PyTypeObject* type = PyStructSequence_NewType(desc);
  if (!type) throw python_error();
  type->tp_repr = return_type_repr;
  PyType_Modified(type);
  Py_INCREF(type);
  if (PyModule_AddObject(module, name, reinterpret_cast<PyObject*>(type)) < 0) throw python_error();
  reg[name] = {type, std::vector<std::string>(fields.begin(), fields.end())};
  return type;
}

PyObject* wrap(bool value) { return PyBool_FromLong(value); }
PyObject* wrap(int64_t value) { return PyLong_FromLongLong(value); }
PyObject* wrap(double value) { return PyFloat_FromDouble(value); }

}  // namespace torchlite::python
