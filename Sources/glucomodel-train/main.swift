print("glucomodel-train: not yet")
