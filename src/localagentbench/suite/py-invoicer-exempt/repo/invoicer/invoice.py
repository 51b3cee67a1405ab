"""Building an invoice from an order."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from invoicer.money import allocate, round_money
from invoicer.orders import Order
from invoicer.tax import line_tax, rate_for


@dataclass(frozen=True)
class InvoiceLine:
    description: str
    quantity: Decimal
    unit_price: Decimal
    net: Decimal
    """quantity * unit_price, rounded to cents."""
    discount: Decimal
    """This line's share of the invoice discount."""
    tax_rate: Decimal
    tax: Decimal

    @property
    def amount(self) -> Decimal:
        """The discounted line amount (tax excluded)."""
        return self.net - self.discount


@dataclass(frozen=True)
class Invoice:
    number: str
    customer_name: str
    currency: str
    lines: list[InvoiceLine]
    subtotal: Decimal
    discount: Decimal
    tax: Decimal
    total: Decimal

    @property
    def is_credit_note(self) -> bool:
        return self.total < 0


def build_invoice(order: Order) -> Invoice:
    """Price every line, share out the discount, compute tax and totals."""
    nets = [round_money(line.quantity * line.unit_price) for line in order.lines]
    subtotal = sum(nets, Decimal("0.00"))
    discount = round_money(subtotal * order.discount_percent / 100)
    shares = allocate(discount, nets)
    lines = []
    for line, net, share in zip(order.lines, nets, shares, strict=True):
        rate = Decimal(0) if order.customer.tax_exempt else rate_for(
            order.customer.region, line.tax_category
        )
        tax = line_tax(net - share, order.customer.region, line.tax_category,
                       exempt=order.customer.tax_exempt)
        lines.append(
            InvoiceLine(
                description=line.description,
                quantity=line.quantity,
                unit_price=line.unit_price,
                net=net,
                discount=share,
                tax_rate=rate,
                tax=tax,
            )
        )
    tax_total = sum((line.tax for line in lines), Decimal("0.00"))
    amount_total = sum((line.amount for line in lines), Decimal("0.00"))
    return Invoice(
        number=order.number,
        customer_name=order.customer.name,
        currency=order.currency,
        lines=lines,
        subtotal=subtotal,
        discount=discount,
        tax=tax_total,
        total=amount_total + tax_total,
    )
