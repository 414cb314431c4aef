// Python side of autograd: grad_fn objects (torchlite._C._Node), the engine
// entry point, grad mode, tensor hooks, and the tensor attributes requires_grad,
// grad, grad_fn, is_leaf.
#include "python/PyAutograd.h"

#include <deque>
#include <unordered_map>

#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "autograd/AutogradMeta.h"
#include "autograd/Engine.h"
#include "autograd/Functions.h"
#include "autograd/GradMode.h"
#include "autograd/SavedValue.h"
#include "autograd/Stage.h"
#include "core/TensorFactory.h"
#include "ops/to.h"
#include "ops/view_as.h"
#include "ops/zeros.h"
#include "python/Errors.h"
#include "python/ArgParser.h"
#include "python/PyTensor.h"

namespace py = pybind11;

namespace torchlite::python {

using autograd::Node;

namespace {

py::object tensor_obj(const Tensor& t) { return py::reinterpret_steal<py::object>(wrap(t)); }

const Tensor& tensor_arg(py::handle h, const char* what) {
  TL_CHECK_TYPE(is_tensor(h.ptr()), what, ": expected a Tensor, got ", Py_TYPE(h.ptr())->tp_name);
  return unwrap(h.ptr());
}

std::vector<Tensor> tensor_seq(const py::handle& seq, const char* what) {
  std::vector<Tensor> out;
  for (py::handle h : seq) {
    if (h.is_none()) {
      out.emplace_back();
    } else {
      out.push_back(tensor_arg(h, what));
    }
  }
  return out;
}

py::object saved_to_py(const autograd::SavedValue& v) {
  return std::visit(
      [](const auto& x) -> py::object {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return py::none();
        } else if constexpr (std::is_same_v<T, Tensor>) {
          return tensor_obj(x);
        } else if constexpr (std::is_same_v<T, std::vector<Tensor>>) {
          py::tuple t(x.size());
          for (size_t i = 0; i < x.size(); ++i) t[i] = tensor_obj(x[i]);
          return std::move(t);
        } else if constexpr (std::is_same_v<T, Scalar>) {
          if (x.is_bool()) return py::bool_(x.to_bool());
          if (x.is_integral(false)) return py::int_(x.to_long());
          return py::float_(x.to_double());
        } else if constexpr (std::is_same_v<T, ScalarType>) {
          return py::reinterpret_borrow<py::object>(dtype_object(x));
        } else if constexpr (std::is_same_v<T, Device>) {
          return py::str(to_string(x));
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>> || std::is_same_v<T, std::vector<double>>) {
          return py::tuple(py::cast(x));
        } else {
          return py::cast(x);
        }
      },
      v.value);
}

// A Python callable as a tensor hook: hook(grad) -> Tensor or None. A named type,
// so the GC traversal below can find the function inside the std::function.
struct PyTensorHook {
  py::function fn;
  Tensor operator()(const Tensor& grad) const {
    py::gil_scoped_acquire gil;
    py::object r = fn(tensor_obj(grad));
    if (r.is_none()) return Tensor();
    TL_CHECK_TYPE(is_tensor(r.ptr()), "hook: expected a Tensor or None as the return value, got ",
                  Py_TYPE(r.ptr())->tp_name);
    const Tensor& out = unwrap(r.ptr());
    // As PyTorch: a hook may change the gradient's values, not its shape, dtype or device.
    if (grad.defined() && out.defined()) {
      const std::string name = py::str(py::getattr(fn, "__name__", py::str("hook")));
      TL_CHECK(out.sizes().equals(grad.sizes()), "hook '", name, "' has changed the size of value (was ",
               grad.sizes(), " got ", out.sizes(), ")");
      TL_CHECK(out.scalar_type() == grad.scalar_type() && out.device() == grad.device(), "hook '", name,
               "' has changed the type of value (was ", scalar_type_python_name(grad.scalar_type()), " on ",
               to_string(grad.device()), " got ", scalar_type_python_name(out.scalar_type()), " on ",
               to_string(out.device()), ")");
    }
    return out;
  }
};

struct PyPostAccumulateHook {
  py::function fn;
  void operator()(const Tensor& t) const {
    py::gil_scoped_acquire gil;
    fn(tensor_obj(t));
  }
};

int64_t g_next_hook_id = 0;

// The node of a torchlite.autograd.Function: backward is a Python callable
// `backward(saved_tensors, *grads) -> tuple of gradients, one per forward input`.
// The saved tensors live here as SavedVariables (an output without its history),
// not in the ctx, so nothing cycles through Python.
class PyFunctionNode final : public Node {
 public:
  // The user's backward decides what a complex gradient is (PyTorch's custom Functions take them too).
  bool supports_complex() const override { return true; }
  PyFunctionNode(std::string name, py::function backward, std::vector<int> input_slots, size_t num_args,
                 bool materialize)
      : name_(std::move(name)),
        backward_(std::move(backward)),
        input_slots_(std::move(input_slots)),
        num_args_(num_args),
        materialize_(materialize) {}
  ~PyFunctionNode() override {
    py::gil_scoped_acquire gil;
    backward_ = py::function();
  }
  std::string name() const override { return name_; }
  void release_variables() override {
    for (auto& v : saved_) v.reset();
  }
  std::vector<autograd::SavedVariable> saved_;

  autograd::variable_list apply(autograd::variable_list&& grads) override {
    py::gil_scoped_acquire gil;
    py::tuple saved(saved_.size());
    for (size_t i = 0; i < saved_.size(); ++i) saved[i] = tensor_obj(saved_[i].unpack(shared_from_this()));
    py::tuple args(grads.size() + 1);
    args[0] = saved;
    for (size_t i = 0; i < grads.size(); ++i) {
      Tensor g = grads[i];
      if (!g.defined() && materialize_) {
        const auto& m = input_meta(i);
        g = zeros(m.sizes, m.dtype, m.device);
      }
      args[i + 1] = tensor_obj(g);
    }
    py::object r = backward_(*args);
    py::tuple rs = py::isinstance<py::tuple>(r) ? py::reinterpret_borrow<py::tuple>(r) : py::make_tuple(r);
    TL_CHECK(rs.size() == num_args_, "function ", name_, " returned an incorrect number of gradients (expected ",
             num_args_, ", got ", rs.size(), ")");
    autograd::variable_list out(num_outputs());
    for (size_t k = 0; k < input_slots_.size(); ++k) {
      py::handle h = rs[input_slots_[k]];
      if (h.is_none()) continue;
      TL_CHECK_TYPE(is_tensor(h.ptr()), "function ", name_, " returned a gradient of type ",
                    Py_TYPE(h.ptr())->tp_name, " for input ", input_slots_[k], ": expected a Tensor or None");
      out[k] = unwrap(h.ptr());
    }
    return out;
  }

 private:
  std::string name_;
  py::function backward_;
  std::vector<int> input_slots_;  // forward argument index of each tensor input (next edge)
  size_t num_args_;
  bool materialize_;
};

}  // namespace

// A node as a Python object whose type is named after it: type(t.grad_fn).__name__ is 'MulBackward0', as
// in PyTorch. Each name gets a subclass of _Node with _Node's layout and deallocator (made with
// PyType_FromSpecWithBases, not `type()`, which would add GC support), so an instance may take it as its
// __class__.
static PyObject* node_type(const std::string& name, PyTypeObject* base) {
  static std::unordered_map<std::string, PyObject*> types;  // guarded by the GIL; kept for the process
  static std::deque<std::string> names;                        // PyType_Spec names must outlive the types
  auto it = types.find(name);
  if (it != types.end()) return it->second;
  names.push_back("torchlite.autograd.graph." + name);
  PyType_Slot slots[] = {{Py_tp_dealloc, reinterpret_cast<void*>(base->tp_dealloc)},
                         {Py_tp_free, reinterpret_cast<void*>(base->tp_free)},
                         {0, nullptr}};
  PyType_Spec spec{names.back().c_str(), static_cast<int>(base->tp_basicsize),
                   static_cast<int>(base->tp_itemsize), Py_TPFLAGS_DEFAULT, slots};
  py::tuple bases = py::make_tuple(py::handle(reinterpret_cast<PyObject*>(base)));
  PyObject* cls = PyType_FromSpecWithBases(&spec, bases.ptr());
  if (!cls) throw py::error_already_set();
  types.emplace(name, cls);
  return cls;
}

py::object node_py(const std::shared_ptr<Node>& node) {
  if (!node) return py::none();
  py::object obj = py::cast(node);
  auto* base = reinterpret_cast<PyTypeObject*>(py::type::of<Node>().ptr());
  if (Py_TYPE(obj.ptr()) == base)
    obj.attr("__class__") = py::handle(node_type(node->name(), base));
  return obj;
}

PyObject* node_object(const std::shared_ptr<Node>& node) { return node_py(node).release().ptr(); }

void init_autograd(PyObject* module) {
  py::module_ m = py::reinterpret_borrow<py::module_>(module);

  py::class_<Node, std::shared_ptr<Node>> node(m, "_Node",
                                              "A node of the backward graph (a tensor's grad_fn).");
  node.def("name", &Node::name, "The node's name, e.g. 'MulBackward0'.");
  node.def_property_readonly("next_functions", [](const Node& n) {
    py::tuple out(n.next_edges().size());
    for (size_t i = 0; i < n.next_edges().size(); ++i) {
      const auto& e = n.next_edges()[i];
      out[i] = py::make_tuple(node_py(e.function), e.input_nr);
    }
    return out;
  }, "((node or None, input number), ...), one per differentiable input");
  node.def_property_readonly("variable", [](const Node& n) -> py::object {
    auto* acc = dynamic_cast<const autograd::AccumulateGrad*>(&n);
    if (!acc) throw py::attribute_error("'" + n.name() + "' object has no attribute 'variable'");
    return tensor_obj(acc->variable());
  }, "AccumulateGrad: the leaf tensor it accumulates into");
  node.def("_sequence_nr", &Node::sequence_nr);
  node.def("_saved_names", &Node::saved_names, "The names of the values saved for backward.");
  node.def("__getattr__", [](const std::shared_ptr<Node>& n, const std::string& attr) -> py::object {
    if (attr.rfind("_saved_", 0) == 0) {
      autograd::SavedValue v;
      if (n->saved_value(attr.substr(7), v)) return saved_to_py(v);
    }
    throw py::attribute_error("'" + n->name() + "' object has no attribute '" + attr + "'");
  });
  node.def("register_hook", [](Node& n, py::function fn) {
    n.post_hooks().push_back([fn](const autograd::variable_list& grad_inputs, const autograd::variable_list& grad_outputs) {
      py::gil_scoped_acquire gil;
      py::tuple gi(grad_inputs.size()), go(grad_outputs.size());
      for (size_t i = 0; i < grad_inputs.size(); ++i) gi[i] = tensor_obj(grad_inputs[i]);
      for (size_t i = 0; i < grad_outputs.size(); ++i) go[i] = tensor_obj(grad_outputs[i]);
      py::object r = fn(gi, go);
      autograd::variable_list out;
      if (r.is_none()) return out;
      for (py::handle h : r) out.push_back(h.is_none() ? Tensor() : tensor_arg(h, "hook"));
      return out;
    });
  }, "hook(grad_inputs, grad_outputs) -> new grad_inputs or None, after the node runs");
  node.def("register_prehook", [](Node& n, py::function fn) {
    n.pre_hooks().push_back([fn](const autograd::variable_list& grad_outputs) {
      py::gil_scoped_acquire gil;
      py::tuple go(grad_outputs.size());
      for (size_t i = 0; i < grad_outputs.size(); ++i) go[i] = tensor_obj(grad_outputs[i]);
      py::object r = fn(go);
      autograd::variable_list out;
      if (r.is_none()) return out;
      for (py::handle h : r) out.push_back(h.is_none() ? Tensor() : tensor_arg(h, "hook"));
      return out;
    });
  }, "hook(grad_outputs) -> new grad_outputs or None, before the node runs");
  node.def("__repr__", [](const Node& n) {
    return "<" + n.name() + " object at " + std::to_string(reinterpret_cast<uintptr_t>(&n)) + ">";
  });

  m.def("_run_backward", [](py::object tensors, py::object grads, bool keep_graph, bool create_graph,
                            py::object inputs, bool accumulate_grad) {
    std::vector<Tensor> outs = tensor_seq(tensors, "backward");
    std::vector<Tensor> gs = tensor_seq(grads, "backward");
    std::vector<autograd::Edge> roots;
    for (size_t i = 0; i < outs.size(); ++i) {
      autograd::Edge e = autograd::gradient_edge(outs[i]);
      TL_CHECK(e.valid(), "element ", i, " of tensors does not require grad and does not have a grad_fn");
      roots.push_back(std::move(e));
    }
    autograd::BackwardOptions opts;
    opts.keep_graph = keep_graph;
    opts.create_graph = create_graph;
    opts.accumulate_grad = accumulate_grad;
    std::vector<Tensor> ins = tensor_seq(inputs, "inputs");
    for (size_t i = 0; i < ins.size(); ++i) {
      autograd::Edge e = autograd::gradient_edge(ins[i]);
      TL_CHECK(e.valid(), "One of the differentiated Tensors does not require grad");
      opts.inputs.push_back(std::move(e));
    }
    autograd::variable_list captured = autograd::run_backward(roots, gs, opts);
    // backward(inputs=non_leaf): its gradient goes to its .grad.
    if (accumulate_grad) {
      for (size_t i = 0; i < ins.size(); ++i)
        if (!autograd::is_leaf(ins[i]) && captured[i].defined())
          autograd::accumulate_into_grad(ins[i], captured[i], create_graph);
      return py::list();
    }
    py::list out;
    for (const Tensor& t : captured) out.append(tensor_obj(t));
    return out;
  }, py::arg("tensors"), py::arg("grad_tensors"), py::arg("keep_graph"), py::arg("create_graph"),
     py::arg("inputs"), py::arg("accumulate_grad"));

  // torchlite.autograd.Function.apply's C++ half: records a PyFunctionNode for `outputs`.
  m.def("_record_function", [](const std::string& name, py::function backward, py::tuple args, py::list outputs,
                               py::list saved, py::list non_differentiable, py::list dirty, bool materialize) {
    std::vector<int> slots;
    std::vector<autograd::Edge> edges;
    for (size_t i = 0; i < args.size(); ++i) {
      if (!is_tensor(args[i].ptr())) continue;
      slots.push_back(static_cast<int>(i));
      edges.push_back(autograd::gradient_edge(unwrap(args[i].ptr())));
    }
    auto node = std::make_shared<PyFunctionNode>(name, std::move(backward), std::move(slots), args.size(),
                                                 materialize);
    node->set_next_edges(std::move(edges));
    auto contains = [](const py::list& l, py::handle h) {
      for (py::handle x : l)
        if (x.is(h)) return true;
      return false;
    };
    py::list result;
    for (size_t k = 0; k < outputs.size(); ++k) {
      py::handle o = outputs[k];
      if (!is_tensor(o.ptr())) {
        result.append(o);
        continue;
      }
      Tensor t = unwrap(o.ptr());
      const bool is_input = contains(py::list(args), o);
      if (is_input && !contains(dirty, o)) t = autograd::detach(t);  // an input returned as is: a new alias
      const uint32_t nr = node->add_input_meta(t);
      if (contains(non_differentiable, o)) {
        // no history
      } else if (contains(dirty, o)) {
        autograd::check_inplace(OpInfo{"Function", "", ""}, t);
        if (t.is_view()) {
          TL_CHECK(nr == 0, "function ", name, ": an input modified in place (mark_dirty) that is a view must be "
                   "the first output");
          autograd::rebase_history(t, node);
        } else if (is_floating_type(t.scalar_type())) {
          auto& meta = autograd::materialize_meta(t);
          meta.grad_fn_ = node;
          meta.output_nr_ = nr;
        }
      } else {
        autograd::set_history(t, node, nr);
      }
      result.append(tensor_obj(t));
    }
    for (py::handle h : saved) {
      if (h.is_none()) {
        node->saved_.emplace_back();
        continue;
      }
      const Tensor& t = tensor_arg(h, "save_for_backward");
      bool is_output = false;
      for (py::handle r : result) is_output |= is_tensor(r.ptr()) && unwrap(r.ptr()).is_same(t);
      node->saved_.emplace_back(t, is_output);
    }
    return result;
  });

  // Forward-mode AD (torchlite.autograd.forward_ad).
  m.def("_enter_dual_level", []() { return autograd::enter_dual_level(); });
  m.def("_exit_dual_level", [](uint64_t level) { autograd::exit_dual_level(level); });
  m.def("_current_dual_level", []() { return autograd::current_dual_level(); });
  // autograd.Function with forward AD: its forward runs without tangents (the level is set aside), then
  // its jvp gives the outputs' tangents.
  m.def("_suspend_dual_level", []() {
    const uint64_t level = autograd::current_dual_level();
    autograd::g_dual_level.store(0);
    return level;
  });
  m.def("_resume_dual_level", [](uint64_t level) { autograd::g_dual_level.store(level); });
  m.def("_set_tangent", [](py::handle t, py::handle tangent) {
    const Tensor& p = tensor_arg(t, "jvp");
    const Tensor& g = tensor_arg(tangent, "jvp");
    TL_CHECK(p.sizes().equals(g.sizes()), "Function.jvp returned a tangent of size ", g.sizes(),
             " for an output of size ", p.sizes());
    autograd::set_tangent(p, g.scalar_type() == p.scalar_type() ? g : to(g, p.scalar_type()));
  });
  m.def("_make_dual", [](py::handle t, py::handle tangent) {
    const Tensor& p = tensor_arg(t, "make_dual");
    const Tensor& g = tensor_arg(tangent, "make_dual");
    check_not_sparse("make_dual", p, "tensor");
    check_not_sparse("make_dual", g, "tangent");
    TL_CHECK(autograd::current_dual_level() != 0,
             "make_dual: forward AD needs an active dual level: use `with torchlite.autograd.forward_ad.dual_level():`");
    TL_CHECK(p.sizes().equals(g.sizes()), "Trying to set a forward gradient that has a different size than that of "
             "the original Tensor, this is not supported. Tensor is of size ", p.sizes(),
             " while the given forward gradient is of size ", g.sizes(), ".");
    TL_CHECK((is_floating_type(p.scalar_type()) || is_complex_type(p.scalar_type())) &&
                 g.scalar_type() == p.scalar_type(),
             "make_dual: expected a floating point or complex primal and a tangent of the same dtype, got ",
             scalar_type_name(p.scalar_type()), " and ", scalar_type_name(g.scalar_type()));
    Tensor dual = view_as(p, p);  // a view, with the primal's backward history
    autograd::set_tangent(dual, g);
    return tensor_obj(dual);
  });
  m.def("_unpack_dual", [](py::handle t) -> py::tuple {
    const Tensor& x = tensor_arg(t, "unpack_dual");
    Tensor tangent = autograd::tangent_of(x);
    if (!tangent.defined()) return py::make_tuple(tensor_obj(x), py::none());
    Tensor primal = view_as(x, x);
    autograd::set_tangent(primal, Tensor());
    return py::make_tuple(tensor_obj(primal), tensor_obj(tangent));
  });

  m.def("is_grad_enabled", []() { return autograd::is_grad_enabled(); }, "Whether grad mode is on (this thread).");
  m.def("_set_grad_enabled", [](bool v) { autograd::set_grad_enabled(v); });
  m.def("is_inference_mode_enabled", []() { return inference_mode_flag(); });
  m.def("_set_inference_mode", [](bool v) { inference_mode_flag() = v; });
  m.def("_is_inference", [](py::handle t) { return tensor_arg(t, "is_inference").impl()->is_inference(); });
  m.def("_autograd_live_counts", []() {
    py::dict d;
    d["tensors"] = TensorImpl::live_count();
    d["nodes"] = Node::live_count();
    d["metas"] = autograd::live_meta_count();
    return d;
  }, "Live TensorImpl, Node and AutogradMeta counts (leak tests).");

  m.def("_register_hook", [](py::handle t, py::function fn) {
    const Tensor& x = tensor_arg(t, "register_hook");
    TL_CHECK(x.requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
    auto hooks = autograd::tensor_hooks(x);
    int64_t id = ++g_next_hook_id;
    hooks->hooks.emplace_back(id, PyTensorHook{std::move(fn)});
    return id;
  });
  m.def("_remove_hook", [](py::handle t, int64_t id) {
    auto* meta = autograd::get_meta(tensor_arg(t, "remove_hook"));
    if (!meta) return;
    if (meta->hooks_) {
      auto& v = meta->hooks_->hooks;
      for (auto it = v.begin(); it != v.end(); ++it)
        if (it->first == id) {
          v.erase(it);
          return;
        }
    }
    auto& p = meta->post_accumulate_hooks_;
    for (auto it = p.begin(); it != p.end(); ++it)
      if (it->first == id) {
        p.erase(it);
        return;
      }
  });
  m.def("_register_post_accumulate_grad_hook", [](py::handle t, py::function fn) {
    const Tensor& x = tensor_arg(t, "register_post_accumulate_grad_hook");
    TL_CHECK(x.requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
    TL_CHECK(autograd::is_leaf(x), "post accumulate grad hooks cannot be registered on non-leaf tensors");
    int64_t id = ++g_next_hook_id;
    autograd::materialize_meta(x).post_accumulate_hooks_.emplace_back(id, PyPostAccumulateHook{std::move(fn)});
    return id;
  });
  m.def("_retain_grad", [](py::handle t) {
    const Tensor& x = tensor_arg(t, "retain_grad");
    TL_CHECK(x.requires_grad(), "can't retain_grad on Tensor that has requires_grad=False");
    if (autograd::is_leaf(x)) return;
    autograd::tensor_hooks(x)->retains_grad = true;
  });
}

// ------------------------------------------------------------------ garbage collection

// The Python functions a tensor's hooks hold, when this tensor alone owns them: its
// TensorImpl has no other owner, and its hook list is shared with nothing but its own
// grad_fn, which nothing else holds. A hook closure that refers to its tensor is then a
// cycle the GC can see and break.
static std::vector<PyObject*> owned_hook_functions(const Tensor& t) {
  std::vector<PyObject*> out;
  auto* m = autograd::get_meta(t);
  if (!m || t.impl()->use_count() != 1) return out;
  if (m->hooks_ && m->hooks_.use_count() <= (m->grad_fn_ ? 2 : 1) && (!m->grad_fn_ || m->grad_fn_.use_count() == 1)) {
    for (auto& [id, hook] : m->hooks_->hooks)
      if (auto* h = hook.target<PyTensorHook>()) out.push_back(h->fn.ptr());
  }
  for (auto& [id, hook] : m->post_accumulate_hooks_)
    if (auto* h = hook.target<PyPostAccumulateHook>()) out.push_back(h->fn.ptr());
  return out;
}

int traverse_autograd(const Tensor& t, visitproc visit, void* arg) {
  for (PyObject* fn : owned_hook_functions(t)) Py_VISIT(fn);
  return 0;
}

void clear_autograd(const Tensor& t) {
  if (owned_hook_functions(t).empty()) return;
  auto* m = autograd::get_meta(t);
  if (m->hooks_) m->hooks_->hooks.clear();
  m->post_accumulate_hooks_.clear();
}

// ------------------------------------------------------------------ tensor attributes

PyObject* tensor_get_grad(const Tensor& t) {
  auto* m = autograd::get_meta(t);
  return wrap(m ? m->grad_ : Tensor());
}

void tensor_set_grad(const Tensor& t, PyObject* value) {
  if (value == nullptr || value == Py_None) {
    if (auto* m = autograd::get_meta(t)) m->grad_ = Tensor();
    return;
  }
  TL_CHECK_TYPE(is_tensor(value), "assigned grad expected to be a Tensor or None but got grad of type ",
                Py_TYPE(value)->tp_name);
  const Tensor& g = unwrap(value);
  TL_CHECK(!g.is_same(t), "can't assign Variable as its own grad");
  TL_CHECK(g.scalar_type() == t.scalar_type(), "assigned grad has data of a different type");
  TL_CHECK(g.device() == t.device(), "assigned grad has data located on a different device");
  TL_CHECK(g.sizes().equals(t.sizes()), "assigned grad has data of a different size");
  autograd::materialize_meta(t).grad_ = g;
}

PyObject* tensor_get_grad_fn(const Tensor& t) { return node_object(autograd::grad_fn(t)); }

Tensor requires_grad_if(bool requires_grad, Tensor t) {
  if (requires_grad) autograd::set_requires_grad(t, true);
  return t;
}

}  // namespace torchlite::python
