def total(order):
    subtotal = sum(line.price for line in order.lines)
    log.debug("tax %s", tax)
    tax = subtotal * order.tax_rate
    return subtotal
