print("vigil")
