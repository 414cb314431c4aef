"""The examples of torch.distributions' documentation (PyTorch 2.7, in the seed docs), run on torchlite: each
constructor as written (torch -> torchlite), one draw of the documented shape inside the distribution's
support; where the documentation's own example fails or prints a stale number, what PyTorch 2.13 does
instead (checked with it when installed)."""
import math

import pytest

import torchlite
import torchlite.distributions as D

# (constructor as the docs write it, the shape of m.sample())
EXAMPLES = [
    ("Bernoulli(torch.tensor([0.3]))", (1,)),
    ("Beta(torch.tensor([0.5]), torch.tensor([0.5]))", (1,)),
    ("Binomial(100, torch.tensor([0 , .2, .8, 1]))", (4,)),
    ("Binomial(torch.tensor([[5.], [10.]]), torch.tensor([0.5, 0.8]))", (2, 2)),
    ("Categorical(torch.tensor([ 0.25, 0.25, 0.25, 0.25 ]))", ()),
    ("Cauchy(torch.tensor([0.0]), torch.tensor([1.0]))", (1,)),
    ("Chi2(torch.tensor([1.0]))", (1,)),
    ("ContinuousBernoulli(torch.tensor([0.3]))", (1,)),
    ("Dirichlet(torch.tensor([0.5, 0.5]))", (2,)),
    ("Exponential(torch.tensor([1.0]))", (1,)),
    ("FisherSnedecor(torch.tensor([1.0]), torch.tensor([2.0]))", (1,)),
    ("Gamma(torch.tensor([1.0]), torch.tensor([1.0]))", (1,)),
    ("Geometric(torch.tensor([0.3]))", (1,)),
    ("Gumbel(torch.tensor([1.0]), torch.tensor([2.0]))", (1,)),
    ("HalfCauchy(torch.tensor([1.0]))", (1,)),
    ("HalfNormal(torch.tensor([1.0]))", (1,)),
    ("InverseGamma(torch.tensor([2.0]), torch.tensor([3.0]))", (1,)),
    ("Kumaraswamy(torch.tensor([1.0]), torch.tensor([1.0]))", (1,)),
    ("LKJCholesky(3, 0.5)", (3, 3)),
    ("Laplace(torch.tensor([0.0]), torch.tensor([1.0]))", (1,)),
    ("LogNormal(torch.tensor([0.0]), torch.tensor([1.0]))", (1,)),
    ("LowRankMultivariateNormal(torch.zeros(2), torch.tensor([[1.0], [0.0]]), torch.ones(2))", (2,)),
    ("Multinomial(100, torch.tensor([ 1., 1., 1., 1.]))", (4,)),
    ("MultivariateNormal(torch.zeros(2), torch.eye(2))", (2,)),
    ("Normal(torch.tensor([0.0]), torch.tensor([1.0]))", (1,)),
    ("OneHotCategorical(torch.tensor([ 0.25, 0.25, 0.25, 0.25 ]))", (4,)),
    ("Pareto(torch.tensor([1.0]), torch.tensor([1.0]))", (1,)),
    ("Poisson(torch.tensor([4.]))", (1,)),  # the docs write [4], an integer rate neither library samples (below)
    ("RelaxedBernoulli(torch.tensor([2.2]), torch.tensor([0.1, 0.2, 0.3, 0.99]))", (4,)),
    ("RelaxedOneHotCategorical(torch.tensor([2.2]), torch.tensor([0.1, 0.2, 0.3, 0.4]))", (4,)),
    ("StudentT(torch.tensor([2.0]))", (1,)),
    ("Uniform(torch.tensor([0.0]), torch.tensor([5.0]))", (1,)),
    ("VonMises(torch.tensor([1.0]), torch.tensor([1.0]))", (1,)),
    ("Weibull(torch.tensor([1.0]), torch.tensor([1.0]))", (1,)),
    ("Wishart(torch.Tensor([2]), covariance_matrix=torch.eye(2))", (1, 2, 2)),
]


def _env(module):
    return {"torch": module, **{k: getattr(module.distributions, k) for k in dir(module.distributions)}}


@pytest.mark.parametrize("code,shape", EXAMPLES, ids=[c.split("(")[0] for c, _ in EXAMPLES])
def test_documented_example_draws(code, shape):
    torchlite.manual_seed(0)
    m = eval(code, _env(torchlite))
    x = m.sample()
    assert tuple(x.shape) == shape
    assert bool(m.support.check(x).all()), f"{code}: {x} outside {m.support!r}"
    assert tuple(m.sample((5,)).shape) == (5,) + shape


def test_documented_examples_that_do_not_run_as_written():
    # Poisson(torch.tensor([4])): an integer rate; PyTorch 2.13 raises the same NotImplementedError
    with pytest.raises(NotImplementedError, match="poisson_cpu"):
        D.Poisson(torchlite.tensor([4])).sample()
    # Multinomial(probs=...).log_prob(x) with x of 100 counts: total_count is 1, so the value is refused, as in
    # PyTorch 2.13; without validation both give the multinomial log-probability (the docs' -4.1338 is stale)
    x = torchlite.tensor([21.0, 24.0, 30.0, 25.0])
    with pytest.raises(ValueError, match="within the support"):
        D.Multinomial(probs=torchlite.tensor([1.0, 1.0, 1.0, 1.0])).log_prob(x)
    value = D.Multinomial(probs=torchlite.tensor([1.0, 1.0, 1.0, 1.0]), validate_args=False).log_prob(x).item()
    exact = math.lgamma(101) - sum(math.lgamma(k + 1) for k in (21, 24, 30, 25)) + 100 * math.log(0.25)
    assert value == pytest.approx(exact, rel=1e-5) and value == pytest.approx(-7.7168, abs=1e-4)


def test_documented_examples_match_torch_shapes():
    torch = pytest.importorskip("torch", reason="PyTorch is an optional oracle")
    for code, shape in EXAMPLES:
        theirs = eval(code, _env(torch))
        ours = eval(code, _env(torchlite))
        assert tuple(theirs.batch_shape) == tuple(ours.batch_shape), code
        assert tuple(theirs.event_shape) == tuple(ours.event_shape), code
        assert tuple(theirs.sample().shape) == shape, code


def test_every_public_name_of_torch_distributions():
    torch = pytest.importorskip("torch", reason="PyTorch is an optional oracle")
    import torch.distributions as TD

    assert sorted(set(TD.__all__) - set(D.__all__)) == []
    assert all(hasattr(D, name) for name in D.__all__)
    assert sorted(set(TD.constraints.__all__) - set(D.constraints.__all__)) == []
    assert sorted(set(TD.transforms.__all__) - set(D.transforms.__all__)) == []


def test_dependent_property_one_hot_and_multinomial_constraints():
    C = D.constraints
    assert C.is_dependent(D.Binomial.support) and D.Binomial.support.is_discrete
    assert isinstance(D.Binomial(torchlite.tensor(5.0), torchlite.tensor(0.5)).support, type(C.integer_interval(0, 1)))
    assert C.one_hot.check(torchlite.tensor([[0.0, 1.0], [1.0, 1.0], [0.0, 0.0]])).tolist() == [True, False, False]
    assert C.multinomial(3).check(torchlite.tensor([[1.0, 2.0], [2.0, 2.0], [0.5, 1.0]])).tolist() == [True, False,
                                                                                                      False]
    with pytest.raises(ValueError, match="Cannot determine validity of dependent constraint"):
        D.Binomial.support.check(torchlite.tensor(1.0))
