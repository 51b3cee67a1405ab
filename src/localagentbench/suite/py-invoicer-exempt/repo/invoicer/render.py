"""Plain-text rendering of invoices."""

from __future__ import annotations

from decimal import Decimal

from invoicer.invoice import Invoice
from invoicer.money import format_money


def _percent(rate: Decimal) -> str:
    text = f"{rate * 100:f}".rstrip("0").rstrip(".")
    return f"{text}%"


def render_text(invoice: Invoice) -> str:
    """The invoice as a fixed-width text document."""
    title = "CREDIT NOTE" if invoice.is_credit_note else "INVOICE"
    cur = invoice.currency
    out = [f"{title} {invoice.number}", f"Customer: {invoice.customer_name}", ""]
    for line in invoice.lines:
        out.append(
            f"{line.description[:30]:<30} {line.quantity:>8} x {line.unit_price:>10}"
            f" = {format_money(line.net, cur):>16}  tax {_percent(line.tax_rate):>5}"
        )
    out.append("")
    out.append(f"{'Subtotal':<20}{format_money(invoice.subtotal, cur):>20}")
    if invoice.discount:
        out.append(f"{'Discount':<20}{format_money(-invoice.discount, cur):>20}")
    out.append(f"{'Tax':<20}{format_money(invoice.tax, cur):>20}")
    out.append(f"{'Total':<20}{format_money(invoice.total, cur):>20}")
    return "\n".join(out) + "\n"
