"""The paper's datasets, its published figures and the reproduction report."""
