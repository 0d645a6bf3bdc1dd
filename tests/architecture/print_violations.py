"""Print every layout rule's violations in full: `python -m tests.architecture.print_violations`."""

from tests.architecture import test_layout as layout

if __name__ == "__main__":
    checks = [
        layout.test_each_tier_imports_only_the_shared_modules_and_the_tiers_below_it,
        layout.test_the_package_has_no_import_cycle,
        layout.test_the_evaluation_engine_touches_pandas_only_in_its_dataframe_adapter,
        layout.test_the_server_launcher_is_not_part_of_the_evaluation,
        layout.test_no_module_is_longer_than_a_sitting,
        layout.test_no_function_is_longer_than_a_screen,
        layout.test_no_function_takes_more_than_a_handful_of_parameters,
        *[
            lambda tier=tier: layout.test_the_engine_tiers_never_import_phoenix(tier)
            for tier in layout.PHOENIX_FREE
        ],
    ]
    for check in checks:
        try:
            check()
        except AssertionError as failure:
            found = failure.args[0] if failure.args else ""
            print(f"== {getattr(check, '__name__', 'phoenix-free')}")
            for line in str(found).replace("assert ", "").splitlines():
                print("  ", line)
