"""ryzykant"""
