"""`make test-fast` (pytest -m "not slow") keeps the first test of each file below a sandbox/,
grader/ or e2e/ folder, so the edit loop still runs every package; `make test` runs the rest."""


def test_the_first_test_of_a_slow_folders_file_is_in_the_edit_loop(request):
    assert request.node.get_closest_marker("slow") is None


def test_the_files_other_tests_are_left_to_the_whole_suite(request):
    assert request.node.get_closest_marker("slow") is not None
