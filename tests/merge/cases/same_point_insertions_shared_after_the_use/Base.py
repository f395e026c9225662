def total(order):
    subtotal = sum(line.price for line in order.lines)
    return subtotal
