import json
from decimal import Decimal

import pytest

from invoicer import OrderError, build_invoice, load_order

D = Decimal


def invoice(exempt):
    customer = {"name": "ACME", "region": "DE"}
    if exempt is not ...:
        customer["tax_exempt"] = exempt
    doc = {"customer": customer, "lines": [{"description": "W", "quantity": 1, "unit_price": "10.00"}]}
    return build_invoice(load_order(json.dumps(doc)))


@pytest.mark.parametrize(
    ("value", "tax"),
    [(True, "0.00"), (False, "1.90"), (..., "1.90"), ("true", "0.00"), ("false", "1.90"),
     ("FALSE", "1.90"), ("True", "0.00")],
)
def test_tax_exempt_values(value, tax):
    assert invoice(value).tax == D(tax)


@pytest.mark.parametrize("value", ["no", "0", "", "yes", 0, 1, None, [], "falsey"])
def test_other_tax_exempt_values_are_rejected(value):
    with pytest.raises(OrderError, match="tax_exempt"):
        invoice(value)
