"""Modal and full screens pushed over the main screen: reviews, questions, pickers, the changes and
rules lists, the workspace's overview and compare.
"""
