def total(order):
    subtotal = sum(line.price for line in order.lines)
    tax = subtotal * order.tax_rate
    log.debug("tax %s", tax)
    return subtotal
