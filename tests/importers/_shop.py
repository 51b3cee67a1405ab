"""Small projects for `generate`, laid out in a test's tmp_path: Python and Go."""

from __future__ import annotations

from pathlib import Path

PRICE = """\
def discount(total, rate):
    return total - total * rate if total >= 100 else total


def total(items):
    if not items:
        return 0
    return sum(items)
"""
"""Two mutation sites: `>=` flipped breaks a test; the `if` dropped changes nothing
(`sum([])` is 0 too): an equivalent mutant."""

TESTS = """\
from shop.price import discount, total


def test_discount_from_100():
    assert discount(100, 0.5) == 50


def test_no_discount_below_100():
    assert discount(50, 0.5) == 50


def test_total():
    assert total([1, 2]) == 3
    assert total([]) == 0
"""


def python_shop(root: Path) -> Path:
    """``shop/price.py`` with two mutation sites and ``tests/test_price.py``."""
    (root / "shop").mkdir(parents=True)
    (root / "shop" / "__init__.py").write_text("")
    (root / "shop" / "price.py").write_text(PRICE)
    (root / "tests").mkdir()
    (root / "tests" / "test_price.py").write_text(TESTS)
    return root


GO_FILES = {
    "go.mod": "module example.com/shop\n\ngo 1.19\n",
    "price/price.go": """\
package price

import "strings"

// Discount takes rate off totals of 100 or more.
func Discount(total, rate float64) float64 {
	switch {
	case total >= 100:
		return total - total*rate
	default:
		return total
	}
}

// Label is a product's name without surrounding spaces.
func Label(name string) string {
	if strings.HasPrefix(name, " ") {
		name = strings.TrimSpace(name)
	}
	return strings.TrimSpace(name)
}
""",
    "price/price_test.go": """\
package price_test

import (
	"testing"

	"example.com/shop/price"
)

func TestDiscountFrom100(t *testing.T) {
	if got := price.Discount(100, 0.5); got != 50 {
		t.Fatalf("got %v", got)
	}
}

func TestNoDiscountBelow100(t *testing.T) {
	if got := price.Discount(50, 0.5); got != 50 {
		t.Fatalf("got %v", got)
	}
}

func TestLabel(t *testing.T) {
	if got := price.Label("  tea "); got != "tea" {
		t.Fatalf("got %q", got)
	}
}
""",
    "cart/cart.go": """\
package cart

import (
	"strings"

	p "example.com/shop/price"
)

// Describe lists the labels of the items, comma-separated.
func Describe(names []string) string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, p.Label(n))
	}
	return strings.Join(out, ", ")
}

// Shadowed calls a local Label, not the price package's.
func Shadowed(name string) string {
	Label := func(s string) string { return s }
	return Label(name)
}
""",
    "cart/cart_test.go": """\
package cart

import "testing"

func TestDescribe(t *testing.T) {
	if got := Describe([]string{" tea", "jam "}); got != "tea, jam" {
		t.Fatalf("got %q", got)
	}
}
""",
}
"""Two mutation sites in price.go: `>=` flipped breaks TestDiscountFrom100; the `if` dropped
changes nothing (TrimSpace runs anyway): an equivalent mutant. `Label` is called through an
aliased import (cart.Describe), from an external test package (TestLabel), and not by
`Shadowed`, whose `Label` is a local variable."""


def go_shop(root: Path) -> Path:
    """The module ``example.com/shop`` (packages price and cart) under ``root``."""
    for rel, text in GO_FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root
