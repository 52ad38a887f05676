"""The ``tradeoff`` command line: latex, text, eval, roc, demo and its error reporting."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp
from sympy import Rational as R

import tradeoff_algebra as ta
from tradeoff_algebra.cli import main
from tradeoff_algebra.parse import symbol_for


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_latex(capsys):
    rc, out, err = run(capsys, "latex", "C(1/100, G(1))**1000 @ EpsDelta(1, delta=1e-5)")
    expected = ta.latex(ta.C(sp.Rational(1, 100), ta.G(1)) ** 1000
                        @ ta.EpsDelta(1, sp.Rational(1, 100000)))
    assert (rc, out, err) == (0, expected + "\n", "")
    assert r"f_{1,\frac{1}{100000}}" in out and r"^{\otimes 1000}" in out


def test_latex_of_a_closed_form(capsys):
    rc, out, _ = run(capsys, "latex", "G(mu)(alpha)")
    assert rc == 0
    assert out.strip() == r"\Phi\left(- \mu + \Phi^{-1}\left(1 - \alpha\right)\right)"


def test_text_is_canonical(capsys):
    rc, out, _ = run(capsys, "text", "Id @ G(nu)**3 @ Gaussian(mu)")
    mu, nu = symbol_for("mu"), symbol_for("nu")
    assert rc == 0 and out == ta.text(ta.G(mu) @ ta.G(nu) ** 3 @ ta.Id) + "\n"
    assert out.strip() == "G(mu) @ Id @ G(nu)**3"


def _phi(x):
    return mpmath.erfc(-x / mpmath.sqrt(2)) / 2


def _phi_inv(a, dps):
    # Phi^{-1}(a) = -sqrt(2) erfinv(1 - 2a), at enough digits for 1 - 2a to keep a's digits.
    with mpmath.workdps(dps):
        return -mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * a)


@pytest.mark.parametrize("alpha_text", ["1e-300", "1e-10", "0.05", "1/3", "0.7"])
def test_eval_gaussian_against_erfinv(capsys, alpha_text):
    # G_1(a) = Phi(-Phi^{-1}(a) - 1) (DRS Eq. (4) with Phi^{-1}(1 - a) = -Phi^{-1}(a)).
    rc, out, err = run(capsys, "eval", "G(1)", alpha_text, "--dps", "25")
    assert rc == 0 and err == ""
    with mpmath.workdps(420):
        a = mpmath.mpf(sp.Rational(alpha_text).p) / sp.Rational(alpha_text).q
        ref = _phi(-_phi_inv(a, 420) - 1)
        got = mpmath.mpf(out.strip())
        assert abs(got - ref) <= abs(ref) * mpmath.mpf(10) ** -24


def test_roc_in_the_far_tail(capsys):
    rc, out, _ = run(capsys, "roc", "gaussian_mechanism(1, 1)", "1e-300", "--dps", "30")
    out, label = out.splitlines()  # the value, then what the constructor built
    assert rc == 0 and label == "for Gaussian mechanism, Δ = 1, σ = 1"
    with mpmath.workdps(420):
        ref = _phi(1 + _phi_inv(mpmath.mpf(10) ** -300, 420))
        got = mpmath.mpf(out.strip())
        assert abs(got / ref - 1) < mpmath.mpf(10) ** -29
    assert 7.6e-285 < float(got) < 7.7e-285  # the README's figure


def test_eval_alpha_is_parsed_exactly(capsys):
    # 1 - 1e-20 is formed exactly; G_1 there is Phi(Phi^{-1}(1e-20) - 1) ~ 5.2e-25.
    rc, out, _ = run(capsys, "eval", "G(1)", "1 - 1e-20", "--dps", "20")
    assert rc == 0
    with mpmath.workdps(60):
        ref = _phi(_phi_inv(mpmath.mpf(10) ** -20, 60) - 1)
        assert abs(mpmath.mpf(out.strip()) / ref - 1) < mpmath.mpf(10) ** -19


def test_eval_exact_values(capsys):
    # Id(1/3) = 2/3; f_{log 2, 1/10}(1/4) = max{0, 9/10 - 1/2, (3/4 - 1/10)/2} = 2/5.
    assert run(capsys, "eval", "Id", "1/3")[1] == "2/3\n"
    assert run(capsys, "eval", "EpsDelta(log(2), 1/10)", "1/4")[1] == "2/5\n"
    assert run(capsys, "roc", "EpsDelta(log(2), 1/10)", "1/4")[1] == "3/5\n"


def test_roc_laplace(capsys):
    # 1 - L_1(a) = e a for a < e^{-1}/2 (DRS Prop. 7 / Appendix A).
    rc, out, _ = run(capsys, "roc", "laplace_mechanism(1, 1)", "1e-10", "--dps", "20")
    out = out.splitlines()[0]
    assert rc == 0
    with mpmath.workdps(40):
        assert abs(mpmath.mpf(out.strip()) - mpmath.e * mpmath.mpf(10) ** -10) < 1e-29


@pytest.mark.parametrize("argv,fragment", [
    (["latex", "().__class__"], "attribute access"),
    (["latex", "__import__('os').system('true')"], "attribute access"),
    (["latex", "__import__('os')"], "dunder"),
    (["text", "lambda: 0"], "lambda"),
    (["latex", "G(-1)"], "mu = -1"),
    (["eval", "G(mu)", "0.5"], "free symbols"),
    (["eval", "G(1)", "2"], "alpha = 2"),
    (["eval", "G(1)", "x"], "alpha = 'x'"),
    (["eval", "G(1)", "G(2)"], "alpha = 'G(2)'"),
    (["eval", "G(1)", "-0.5"], "alpha = -1/2"),
    (["eval", "G(1)", "0.5", "--dps", "0"], "dps = 0"),
    (["eval", "mu + 1", "0.5"], "a trade-off expression"),
    (["eval", "G(mu)", "0.5"], "without free symbols"),
    (["eval", "G(1)"], "required: ALPHA"),
    (["eval", "G(1)", "0.5", "--dps", "many"], "invalid int value"),
    (["frobnicate"], "invalid choice"),
    ([], "required"),
])
def test_errors_are_one_line_and_exit_2(capsys, argv, fragment):
    rc, out, err = run(capsys, *argv)
    assert rc == 2 and out == ""
    assert err.startswith("tradeoff: error: ") and err.endswith("\n")
    assert err.count("\n") == 1, err
    assert fragment in err, err


def test_eval_uses_the_simplified_form_where_the_tensor_has_no_route(capsys):
    # G_1 (x) G_2 = G_sqrt(5) (Cor. 2); the number is that of the closed form.
    rc, out, _ = run(capsys, "eval", "G(1) @ G(2)", "0.05", "--dps", "40")
    assert rc == 0
    rc2, out2, _ = run(capsys, "eval", "G(sqrt(5))", "0.05", "--dps", "40")
    assert rc2 == 0 and out == out2


def test_demo_still_runs(capsys):
    rc, out, _ = run(capsys, "demo", "--dps", "15")
    assert rc == 0 and "G_{\\mu}" in out


def test_help_exits_cleanly(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for command in ("latex", "text", "eval", "roc", "demo"):
        assert command in out


def test_simplify_and_derive_commands(capsys):
    rc, out, _ = run(capsys, "simplify", "G(mu) @ G(nu)**3 @ Id")
    assert rc == 0 and out.strip() == "G(sqrt(mu**2 + 3*nu**2))"
    rc, out, _ = run(capsys, "derive", "G(mu) @ G(nu)**3 @ Id", "--latex")
    assert rc == 0 and out.startswith(r"\begin{align*}") and r"Cor.~2" in out
    assert out.count(r"\\") == 2  # three steps, two line breaks
    rc, out, _ = run(capsys, "derive", "C(p, EpsDelta(eps, delta))", "--latex")
    assert rc == 0 and r"f_{\varepsilon,\delta}" in out  # the papers' epsilon


def test_delta_and_eps_commands_match_the_api(capsys):
    import mpmath

    rc, out, _ = run(capsys, "delta", "G(1)", "5", "--dps", "25")
    assert rc == 0
    # Cor. 1 of Dong, Roth & Su, evaluated directly at 60 digits.
    with mpmath.workdps(60):
        half = mpmath.mpf(1) / 2
        ref = mpmath.ncdf(-5 + half) - mpmath.exp(5) * mpmath.ncdf(-5 - half)
        assert abs(mpmath.mpf(out.strip()) - ref) <= mpmath.mpf(10) ** -23 * ref
    rc, out, _ = run(capsys, "eps", "G(1)", "1e-5", "--dps", "20")
    assert rc == 0
    eps = out.strip()
    rc, back, _ = run(capsys, "delta", "G(1)", eps, "--dps", "20")
    assert rc == 0 and abs(float(back) - 1e-5) < 1e-17
    rc, _, err = run(capsys, "delta", "G(1)", "x")
    assert rc == 2 and "eps = 'x'" in err


def test_noisy_sgd_parses_and_gives_an_enclosure(capsys):
    rc, out, _ = run(capsys, "eps", "noisy_sgd(2, 1/100, 100)", "1e-5", "--dps", "8")
    assert rc == 0 and out.startswith("[")


def test_gdp_command_matches_the_api(capsys):
    rc, out, _ = run(capsys, "gdp", "G(1) @ G(2)")
    assert rc == 0 and out.startswith("2.23606797749978969")
    rc, out, _ = run(capsys, "gdp", "EpsDelta(1, 0)", "--dps", "15")
    v = ta.gdp_mu(ta.EpsDelta(1, 0), dps=15)
    assert rc == 0 and out.strip() == str(v)
    rc, out, _ = run(capsys, "gdp", "EpsDelta(1, 1e-5)")
    assert rc == 0 and out.strip() == "+inf"
    rc, out, err = run(capsys, "gdp", "G(1", "--dps", "15")
    assert rc == 2 and "expression" in err


# -- bad input: exit 2 with one line naming the parameter; failed computations exit 4 -----------
@pytest.mark.parametrize("argv,fragment", [
    (["eps", "G(mu)", "1e-5"], "symbol mu has no value"),  # used to print epsilon(G(mu), ...)
    (["delta", "G(mu) @ G(nu)", "1"], "symbols mu, nu have no value"),
    (["eval", "G(mu)", "0.5"], "symbol mu has no value"),
    (["renyi", "G(mu)", "2"], "symbol mu has no value"),
    (["gdp", "G(mu)"], "symbol mu has no value"),  # used to print mu
    (["gdp", "Laplace(mu)"], "symbol mu has no value"),  # used to print gdp_mu(Laplace(mu))
    (["convert", "zCDP(r)", "--delta", "1e-5"], "symbol r has no value"),
    (["convert", "G(mu)", "--delta", "1e-5"], "symbol mu has no value"),
    (["plot", "G(mu)", "-o", "unused.png"], "symbol mu has no value"),
    (["calibrate", "G(mu/s)", "--param", "s", "--epsilon", "1", "--delta", "1e-5"],
     "symbol mu has no value"),
])
def test_numeric_commands_refuse_free_symbols_naming_them(capsys, argv, fragment):
    rc, out, err = run(capsys, *argv)
    assert (rc, out) == (2, "") and err.count("\n") == 1, err
    assert "parameter EXPR = " in err and fragment in err, err


@pytest.mark.parametrize("argv,fragment", [
    (["plot", "G(1)", "--points", "-5"], "parameter --points = -5"),
    (["plot", "G(1)", "--points", "0"], "parameter --points = 0"),
    (["plot", "G(1)", "--points", "100000000"], "parameter --points = 100000000"),
    (["plot", "G(1)", "--dpi", "0"], "parameter --dpi = 0"),
    (["plot", "G(1)", "--dpi", "2"], "parameter --dpi = 2"),  # fonts cannot be sized
    (["plot", "G(1)", "--dpi", "100000"], "parameter --dpi = 100000"),
    (["plot", "G(1)", "--dpi", "9" * 5000], "--dpi must be an integer"),
    (["verify", "GDP(1)", "==", "GDP(1)"], "parameter LHS = 'GDP(1)'"),
    (["verify", "1", "<=", "zCDP(1)"], "parameter RHS = 'zCDP(1)'"),
    (["convert", "zCDP(1)", "--eps", "-1"], "parameter eps = -1"),
    (["gdp", "Laplace(1)", "--tol", "-1"], "parameter tol = -1"),
    (["eval", "mu + 1", "0.5"], "a trade-off expression"),
])
def test_bad_options_exit_2_naming_them(capsys, tmp_path, argv, fragment):
    if argv[0] == "plot":
        argv = argv + ["-o", str(tmp_path / "f.png")]
    rc, out, err = run(capsys, *argv)
    assert (rc, out) == (2, "") and err.count("\n") == 1, err
    assert fragment in err and "internal error" not in err, err
    assert not (tmp_path / "f.png").exists()


def test_plot_output_must_be_writable(capsys, tmp_path):
    missing = tmp_path / "no such folder" / "f.png"
    rc, out, err = run(capsys, "plot", "G(1)", "--points", "5", "-o", str(missing))
    assert (rc, out) == (2, "") and "parameter --output" in err and "does not exist" in err
    rc, _, err = run(capsys, "plot", "G(1)", "--points", "5", "-o", str(tmp_path / "f.xyz"))
    assert rc == 2 and "parameter --output" in err and ".png" in err
    rc, _, err = run(capsys, "plot", "G(1)", "--points", "5", "-o", str(tmp_path))
    assert rc == 2 and "parameter --output" in err
    rc, out, err = run(capsys, "plot", "G(1)", "--points", "5", "-o", str(tmp_path / "f.png"))
    assert (rc, err) == (0, "") and (tmp_path / "f.png").exists()


def test_degenerate_renyi_inputs_give_numbers(capsys):
    assert run(capsys, "renyi", "Zero**0", "2")[:2] == (0, "0\n")  # exact; used to recurse
    assert run(capsys, "renyi", "EpsDelta(1, 1)", "1/2")[:2] == (0, "+inf\n")  # was 'zoo'


def test_a_failed_computation_exits_4_never_1(capsys, monkeypatch):
    import sys

    verify_module = sys.modules["tradeoff_algebra.verify"]  # the package, not the function

    def boom(*args, **kwargs):
        raise ta.NumericalError("could not decide")

    monkeypatch.setattr(verify_module, "verify", boom)
    rc, out, err = run(capsys, "verify", "G(1)", "==", "G(1)")
    assert (rc, out) == (4, "") and "could not decide" in err
    rc, _, err = run(capsys, "calibrate", "G(1/s)", "--param", "s", "--advantage", "0")
    assert rc == 4 and "no value" in err


def test_help_lists_the_exit_statuses(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    for text in ("0 success", "1 verify: the claim fails", "2 bad input", "3 verify: undecided",
                 "4 the computation failed", "130 Ctrl-C"):
        assert text in out, text


# -- the registry of subcommands ------------------------------------------------------------------
def test_each_subcommand_is_registered_once_in_order(capsys):
    from tradeoff_algebra.cli import COMMANDS

    names = ["latex", "text", "simplify", "derive", "approx", "eval", "roc", "delta", "eps",
             "renyi", "gdp", "convert", "plot", "calibrate", "verify", "demo"]
    assert list(COMMANDS) == names
    rc, _, err = run(capsys, "frobnicate")
    assert rc == 2 and "(choose from " + ", ".join(map(repr, names)) + ")" in err


def test_help_shows_every_example_and_points_to_nothing_outside_the_package(capsys):
    from tradeoff_algebra.cli import COMMANDS

    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "docs/" not in out and "architecture" not in out
    assert "tradeoff_algebra.rules()" in " ".join(out.split())
    for c in COMMANDS.values():
        assert c.examples, c.name
        with pytest.raises(SystemExit) as info:
            main([c.name, "--help"])
        assert info.value.code == 0
        own = capsys.readouterr().out
        for text, comment in c.examples:
            first = text.split("\n")[0]  # the arguments may continue on further lines
            line = f"tradeoff {c.name} {first}".rstrip()
            assert line in out and line in own, line
            assert comment in out


def test_every_example_parses():
    """The examples shown by --help are valid command lines (their arguments and options)."""
    import shlex

    from tradeoff_algebra.cli import COMMANDS
    from tradeoff_algebra.cli.registry import build_parser
    from tradeoff_algebra.parse import parse_expr

    parser = build_parser()
    for c in COMMANDS.values():
        for text, _ in c.examples:
            argv = [c.name] + shlex.split(text.replace("\\\n", " ").replace("\n", " "))
            args = parser.parse_args(argv)
            assert args.command == c.name
            for expr in getattr(args, "exprs", None) or [getattr(args, "expr", None)]:
                if expr is not None:
                    parse_expr(expr)


def test_registration_errors_name_the_parameter():
    from tradeoff_algebra.cli import COMMANDS, subcommand, unregister

    before = list(COMMANDS)
    with pytest.raises(ta.InvalidParameter, match="parameter name = 'eval'"):
        subcommand("eval", "a second eval")(lambda args: 0)
    with pytest.raises(ta.InvalidParameter, match="parameter name = 'Two words'"):
        subcommand("Two words", "not a word")(lambda args: 0)
    with pytest.raises(ta.InvalidParameter, match="parameter name = 'nope'"):
        unregister("nope")
    assert list(COMMANDS) == before and COMMANDS["eval"].help.startswith("evaluate f(ALPHA)")


def test_a_registered_subcommand_answers_and_leaves_when_unregistered(capsys):
    from tradeoff_algebra.cli import COMMANDS, subcommand, unregister
    from tradeoff_algebra.cli.readers import EXPR, dps_option, numeric_expression

    before = list(COMMANDS)

    @subcommand("fixed", "the fixed point of f", EXPR, dps_option(20),
                examples=[('"G(1)"', "Phi(-1/2)")])
    def fixed(args):
        print(ta.fixed_point(numeric_expression(args.expr), dps=args.dps))
        return 3

    try:
        assert list(COMMANDS) == before + ["fixed"]
        rc, out, err = run(capsys, "fixed", "G(1)")
        assert (rc, err) == (3, "")
        with mpmath.workdps(40):  # G_mu(a) = a at a = Phi(-mu/2)
            assert abs(mpmath.mpf(out) - _phi(mpmath.mpf(-1) / 2)) < mpmath.mpf(10) ** -19
        rc, out, err = run(capsys, "fixed", "G(mu)")
        assert (rc, out) == (2, "") and "symbol mu has no value" in err
    finally:
        unregister("fixed")
    assert list(COMMANDS) == before
    rc, _, err = run(capsys, "fixed", "G(1)")
    assert rc == 2 and "invalid choice: 'fixed'" in err


# -- --dps N: N significant digits of each end, rounded outward, or a note saying why not ---------
def _digits(text: str) -> int:
    return len(text.lstrip("-").replace(".", "").split("e")[0].lstrip("0"))


def test_dps_gives_each_end_of_an_enclosure_its_digits(capsys):
    f = ta.noisy_sgd(R(1, 2), R(1, 100), 3)
    v = ta.epsilon(f, R(1, 10**5), dps=8)
    # (the inversion's enclosure at the default tolerance: certified, about 4 digits)
    assert not v.is_point and v.guarantee == "certified"
    rc, out, err = run(capsys, "eps", "noisy_sgd(1/2, 1/100, 3)", "1e-5", "--dps", "8")
    out, label = out.splitlines()  # the value, then what was built (its sampling scheme)
    assert rc == 0 and out.startswith("[") and out.endswith("]")  # (no label: certified)
    assert label == "for DP-SGD, σ = 1/2, q = 1/100, T = 3, Poisson"
    lo, hi = out.split(" (")[0].strip("[]").split(", ")
    # each end is its end of the enclosure rounded outward to 8 significant digits (trailing
    # zeros dropped, as Python's 'g' does: 3.6601600 prints 3.66016)
    with mpmath.workdps(40):
        for text, end, down in ((lo, v.lo, True), (hi, v.hi, False)):
            x = mpmath.mpf(end)
            unit = mpmath.mpf(10) ** (mpmath.floor(mpmath.log10(x)) - 7)
            k = mpmath.floor(x / unit) if down else mpmath.ceil(x / unit)
            assert _digits(text) <= 8 and abs(mpmath.mpf(text) - k * unit) <= unit * 1e-20
    with mpmath.workdps(40):  # outward: the printed ends hold the enclosure
        assert mpmath.mpf(lo) <= mpmath.mpf(v.lo) and mpmath.mpf(hi) >= mpmath.mpf(v.hi)
    # the enclosure is known to fewer digits than printed: a note on stderr says so and why
    assert err.startswith("tradeoff: note: each end is printed to 8 digits")
    assert f"known to about {v.known_digits()} significant digits" in err
    assert "route: certified Laplace inversion" in err and err.count("\n") == 1
    # without --dps, the digits that tell the ends apart (as str(v)), and no note
    rc, out, err = run(capsys, "eps", "noisy_sgd(1/2, 1/100, 3)", "1e-5")
    v30 = ta.epsilon(f, R(1, 10**5))
    assert (rc, out, err) == (0, f"{v30}\n{label}\n", "")


def test_dps_of_a_certified_point_prints_its_digits(capsys):
    rc, out, err = run(capsys, "eval", "G(1)", "0.05", "--dps", "8")
    assert (rc, err) == (0, "") and out.strip() == "0.74048898"
    with mpmath.workdps(30):  # DRS Eq. (4): G_1(0.05) = Phi(Phi^{-1}(0.95) - 1)
        ref = _phi(-_phi_inv(mpmath.mpf("0.05"), 30) - 1)
    assert abs(mpmath.mpf(out) - ref) <= ref * mpmath.mpf(10) ** -7


def test_float_parameters_print_as_written_on_the_command_line(capsys):
    # the parser reads decimals exactly (11/10): text prints that exact rational
    rc, out, _ = run(capsys, "text", "gaussian_mechanism(1, 1.1)")
    assert (rc, out) == (0, "G(10/11)\n")
