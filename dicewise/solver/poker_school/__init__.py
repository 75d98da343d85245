"""poker_school"""
