def total(order):
    subtotal = sum(line.price for line in order.lines)
<<<<<<< ours
    tax = subtotal * order.tax_rate
||||||| base
=======
    log.debug("tax %s", tax)
    tax = subtotal * order.tax_rate
>>>>>>> theirs
    return subtotal
