print("glucomodel-predict: not yet")
