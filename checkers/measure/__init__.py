"""Measuring, in the sandbox child (with torch): the grading job (`grade`) runs the snippet
under the policy with a tick at the top of every loop (`instrument`), while the ledger
(`ledger`) records every autograd node's birth, last use and death, the byte counters
(`memory`) give the memory curve, and the scan (`retained`) finds what still holds graph.
The snippet's fingerprinted results (`fingerprint`) and the warnings it caused
(`warnings_shown`) travel back with the measurements. Never imported by the parent.
"""
