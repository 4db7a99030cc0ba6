print("vigil-bench")
