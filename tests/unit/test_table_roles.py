"""Every table element names its role, whatever layout book.css gives it (book/_ext/table_roles.py)."""

import importlib.util

from lib.util.paths import ROOT

spec = importlib.util.spec_from_file_location("table_roles", ROOT / "book" / "_ext" / "table_roles.py")
table_roles = importlib.util.module_from_spec(spec)
spec.loader.exec_module(table_roles)

TABLE = (
    '<table class="table">\n<thead>\n<tr class="row-odd"><th class="head"><p>claim</p></th></tr>\n</thead>\n'
    '<tbody>\n<tr class="row-even"><th class="stub">S-1c</th><td><p>holds</p></td></tr>\n</tbody>\n</table>'
)


def test_each_table_element_names_its_role_and_a_header_cell_whether_it_heads_a_column_or_a_row():
    html = table_roles.with_roles(TABLE)
    assert '<table role="table" class="table">' in html
    assert html.count('role="rowgroup"') == 2 and html.count('role="row"') == 2
    assert '<th role="columnheader" class="head">' in html and '<th role="rowheader" class="stub">' in html
    assert '<td role="cell">' in html and "</thead>" in html and "</table>" in html


def test_text_around_tables_and_roles_already_named_are_left_alone():
    html = '<p>a &lt;table&gt; in prose</p><thead-like/><td role="none">x</td>'
    assert table_roles.with_roles(html) == html
