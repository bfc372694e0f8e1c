"""The Textual app: home, practice, code tasks, mocks, statistics. Never imports torch.

Where CSS lives, one rule: screens (`screens/`) and dialogs (`dialogs/`) are styled in the one
app stylesheet, `grill.tcss`, each rule prefixed by its screen's type; reusable widgets
(`widgets/`) carry their own `DEFAULT_CSS`, so they look right wherever they are mounted. A
test checks that no screen or dialog defines `DEFAULT_CSS`.
"""
