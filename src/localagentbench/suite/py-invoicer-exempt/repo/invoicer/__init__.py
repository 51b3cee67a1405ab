"""invoicer: invoices and credit notes from order data."""

from invoicer.invoice import Invoice, InvoiceLine, build_invoice
from invoicer.orders import Customer, Order, OrderError, OrderLine, load_order
from invoicer.render import render_text

__all__ = [
    "Customer",
    "Invoice",
    "InvoiceLine",
    "Order",
    "OrderError",
    "OrderLine",
    "build_invoice",
    "load_order",
    "render_text",
]
