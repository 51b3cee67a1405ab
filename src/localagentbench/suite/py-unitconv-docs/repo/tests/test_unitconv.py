import pytest

from unitconv import Quantity, UnitError, convert, dimension, parse_quantity, units


def test_linear_conversions():
    assert convert(10, "km", "mi") == pytest.approx(6.213711922)
    assert convert(1, "ft", "in") == pytest.approx(12)
    assert convert(2, "h", "min") == pytest.approx(120)
    assert convert(16, "oz", "lb") == pytest.approx(1)


def test_temperature():
    assert convert(100, "degC", "degF") == pytest.approx(212)
    assert convert(-40, "degF", "degC") == pytest.approx(-40)
    assert convert(0, "K", "degC") == pytest.approx(-273.15)


def test_incompatible_units():
    with pytest.raises(UnitError, match=r"cannot convert kg \(mass\) to m \(length\)"):
        convert(1, "kg", "m")
    with pytest.raises(UnitError):
        dimension("furlong")


def test_units_listing():
    assert units("time") == ["h", "min", "s"]
    assert "degC" in units()


def test_quantity():
    q = Quantity(5, "km").to("m")
    assert q == Quantity(5000.0, "m")
    assert str(parse_quantity(" 3.5km ")) == "3.5 km"
    assert Quantity(1, "km") + Quantity(500, "m") == Quantity(1.5, "km")
    with pytest.raises(UnitError):
        Quantity(1, "degC") + Quantity(1, "degC")
