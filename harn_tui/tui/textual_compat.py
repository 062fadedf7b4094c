"""The one place the console touches Textual's private attributes (Textual is pinned; see `PRIVATE_ATTRIBUTES`).

Each use buys a repaint or a measurement the public API would do for the whole widget. `PRIVATE_ATTRIBUTES`
lists every one, and a test fails, naming it, when a Textual upgrade removes one.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from itertools import zip_longest
from typing import Any, cast

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import App
from textual.content import Content
from textual.coordinate import Coordinate
from textual.css.model import SelectorType
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.geometry import Region, Size
from textual.messages import Update
from textual.screen import Screen
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey, DuplicateKey, RowKey
from textual.widgets.data_table import Row as TableRow

PRIVATE_ATTRIBUTES: dict[type, tuple[str, ...]] = {
    DataTable: (
        "_data",
        "_update_count",
        "_update_dimensions",
        "_row_locations",
        "_new_rows",
        "_require_update_dimensions",
        "_render_cell",
        "_cell_render_cache",
        "_column_locations",
        "_get_styles_to_render_cell",
        "_show_hover_cursor",
        "_pseudo_class_state",
        "_render_line_in_row",
        "_row_render_cache",
        "_labelled_row_exists",
        "_row_label_column_width",
        "_get_row_style",
    ),
    Widget: ("_border_subtitle", "_repaint_required", "_repaint_regions", "_has_focus_within", "_layout_required"),
    App: ("_exit", "_closing", "_batch_count"),
    Screen: ("_refresh_layout", "_compositor", "_compositor_refresh", "_dirty_widgets", "_update_focus_styles"),
}


def padded_cell_line(
    console: Console, cell: Text, width: int, padding: int, pre: Style, post: Style
) -> list[Segment] | None:
    """The one line Rich renders for `Styled(Padding(cell, (0, padding)), pre, post)` at `width`, no wrap, built
    from the cell's own segments; None when the cell does not fit on it as it is (Rich then crops or wraps it).

    Rich renders a Text one line high through the padding, a Text join and two line splits: ~0.1 ms a cell, and a
    frame showing another goal's graph has a hundred new cells. The segments differ from Rich's only in where
    the spaces are split, which no terminal sees (each line's segments are merged by style before painting)."""
    inner = width - 2 * padding
    plain = cell.plain
    if inner < 0 or "\n" in plain or "\t" in plain or cell.justify not in (None, "default") or cell.cell_len > inner:
        return None

    def styled(style: Style | None) -> Style:
        under = pre + style if style is not None else pre
        return under + post if post else under

    # Rich renders a Text's own style as a span over all of it (`Text.join`), so a Text with no spans is one run
    runs = cell.render(console, end="") if cell.spans else [Segment(plain, console.get_style(cell.style, default=""))]
    blank = styled(None)
    line = [Segment(" " * padding, blank)]
    used = 0
    for run in runs:
        if run.text:
            line.append(Segment(run.text, styled(run.style)))
            used += run.cell_length
    line.append(Segment(" " * (inner - used + padding), blank))
    return line


SETTLE_PASSES = 3  # at most, after the first: a panel shown for the first time needs one, its new scrollbars two


class RenderPass:
    """What every line of one render pass of a table shares, worked out once in it: DataTable works each of
    these out again on every row or cell (its `rich_style` is blended from every ancestor's styles each time it
    is asked for; the header's style likewise; the others are reactives and a context variable)."""

    def __init__(self, table: MeasuredTable) -> None:
        self.table = table

    @cached_property
    def style(self) -> Style:
        """The table's `rich_style`."""
        return super(MeasuredTable, self.table).rich_style

    @cached_property
    def widths(self) -> tuple[int, int]:
        """The columns' total width (with the labels'), and the table's."""
        table = self.table
        columns = sum(column.get_render_width(table) for column in table.ordered_columns)
        return columns + table._row_label_column_width, table.size.width

    @cached_property
    def cells(self) -> tuple[bool, bool, bool, bool, int, Console]:
        """Show the cursor, show the hover cursor, the cursor's fore- and background from CSS, cell padding, and
        the console."""
        table = self.table
        return (
            table.show_cursor,
            table._show_hover_cursor,
            table.cursor_foreground_priority == "css",
            table.cursor_background_priority == "css",
            table.cell_padding,
            table.app.console,
        )


class MeasuredTable(DataTable[Text]):
    """A DataTable whose subclass measures its own new rows, replaces cells without a whole-table repaint, and
    renders its one-line Text cells without Rich's layout machinery."""

    _pass: RenderPass | None = None  # while the table renders its lines

    def render_lines(self, crop: Region) -> list[Strip]:
        """Render with what every line shares worked out once (`RenderPass`): a third of a new row's cost."""
        self._pass = RenderPass(self)
        try:
            return super().render_lines(crop)
        finally:
            self._pass = None

    @property
    def rich_style(self) -> Style:
        return self._pass.style if self._pass is not None else super().rich_style

    def _render_line_in_row(
        self,
        row_key: RowKey,
        line_no: int,
        base_style: Style,
        cursor_location: Coordinate,
        hover_location: Coordinate,
    ) -> tuple[list[list[Segment]], list[list[Segment]]]:
        """A row's line as DataTable renders it (same cache, same segments) when the row is all scrollable cells
        under a row cursor, in a render pass; anything else goes through DataTable."""
        cursor_type = self.cursor_type
        shared = self._pass
        if (
            shared is None
            or cursor_type != "row"
            or self.fixed_columns
            or (self._labelled_row_exists and self.show_row_labels)
        ):
            return super()._render_line_in_row(row_key, line_no, base_style, cursor_location, hover_location)
        show_cursor, show_hover, *_ = shared.cells
        key = (
            row_key,
            line_no,
            base_style,
            cursor_location,
            hover_location,
            cursor_type,
            show_cursor,
            show_hover,
            self._update_count,
            self._pseudo_class_state,
        )
        found: tuple[list[list[Segment]], list[list[Segment]]] | None = self._row_render_cache.get(key)
        if found is not None:
            return found
        table_width, widget_width = shared.widths
        located = self._row_locations.get(row_key)
        row_index = -1 if located is None else located
        row_style = self._get_row_style(row_index, base_style)
        on_cursor = cursor_location.row == row_index
        hovered = hover_location.row == row_index
        cells = [
            self._render_cell(
                row_index, index, row_style, column.get_render_width(self), cursor=on_cursor, hover=hovered
            )[line_no]
            for index, column in enumerate(self.ordered_columns)
        ]
        extend, _ = self._get_styles_to_render_cell(
            row_index == -1,
            False,
            False,
            hover_location.row == (row_index or 0),
            on_cursor,
            show_cursor,
            show_hover,
            False,
            False,
        )
        extend = row_style + extend + Style.from_meta({"row": row_index, "column": 0, "out_of_bounds": True})
        cells.append([Segment(" " * max(0, widget_width - table_width), extend)])
        pair: tuple[list[list[Segment]], list[list[Segment]]] = ([], cells)
        self._row_render_cache[key] = pair
        return pair

    def _render_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
    ) -> list[list[Segment]]:
        """A body cell as DataTable renders it (same cache key, same styles), from `padded_cell_line`; the header,
        labels, fixed cells and anything that is not a fitting one-line Text go through DataTable."""
        if row_index < 0 or column_index < 0 or self.fixed_rows or self.fixed_columns:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        row_key = self._row_locations.get_key(row_index)
        column_key = self._column_locations.get_key(column_index)
        if row_key is None or column_key is None:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        shared = self._pass or RenderPass(self)  # a cell drawn outside a render pass works it out for itself
        show_cursor, show_hover, foreground_css, background_css, padding, console = shared.cells
        key = (row_key, column_key, base_style, cursor, hover, show_hover, self._update_count, self._pseudo_class_state)
        found = self._cell_render_cache.get(key)
        if found is not None:
            return found
        cells = self._data.get(row_key)
        cell = cells.get(column_key) if cells is not None else None
        row = self.rows.get(row_key)
        if not isinstance(cell, Text) or row is None or row.height != 1:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        component, post = self._get_styles_to_render_cell(
            False, False, False, hover, cursor, show_cursor, show_hover, foreground_css, background_css
        )
        pre = base_style + Style.from_meta({"row": row_index, "column": column_index}) + component
        line = padded_cell_line(console, cell, width, padding, pre, post)
        if line is None:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        lines = [line]
        self._cell_render_cache[key] = lines
        return lines

    def measure_rows(self, new_rows: Iterable[RowKey]) -> Iterable[RowKey]:
        """Widen columns for `new_rows` and return the rows DataTable must still measure (here: all of them)."""
        return new_rows

    def row_cells(self, row_key: RowKey) -> Mapping[ColumnKey, Text] | None:
        """The cells of a row, None once the row is gone."""
        return self._data.get(row_key)

    def add_rows_at_once(self, rows: Sequence[tuple[str, Sequence[Text]]]) -> None:
        """Append `rows` as `add_row` would, one line high and unlabelled, in one step.

        `add_row` re-assigns the cursor (a reactive, with its validators and watchers) and checks for idle once
        per row: about 0.4 ms a row, 400 ms for a goal history of a thousand entries. Every row but the last is
        entered into the table's maps directly, as `add_row` enters it; the last goes through `add_row`, which
        does the once-per-change part (dimensions, cursor, highlight, idle) for all of them."""
        columns = self.ordered_columns
        for key, cells in rows[:-1]:
            row_key = RowKey(key)
            if row_key in self._row_locations:
                raise DuplicateKey(f"The row key {row_key!r} already exists.")
            self._row_locations[row_key] = self.row_count
            self._data[row_key] = {column.key: cell for column, cell in zip_longest(columns, cells)}
            self.rows[row_key] = TableRow(row_key, 1, None, False)
            self._new_rows.add(row_key)
        if rows:
            key, cells = rows[-1]
            self.add_row(*cells, key=key)

    def replace_in_row(self, key: str, cells: Mapping[str, Text]) -> None:
        """Replace cells in place, invalidate the render caches (keyed by the update count) and repaint only
        that row: `update_cell` repaints the whole table and re-measures it on idle."""
        row = self._data[RowKey(key)]
        for column, cell in cells.items():
            row[ColumnKey(column)] = cell
        self._update_count += 1
        self.refresh_row(self.get_row_index(key))

    def settle_dimensions(self) -> None:
        """Measure the rows added since the last measurement now, as DataTable does on idle: the table's
        scrollable size (and an auto-height table's height) is then right in the first frame after a change,
        which is laid out once instead of once with the old size and again after the idle."""
        if self._require_update_dimensions:
            self._require_update_dimensions = False
            new_rows = set(self._new_rows)
            self._new_rows.clear()
            self._update_dimensions(new_rows)

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        super()._update_dimensions(self.measure_rows(new_rows))


def set_subtitle_row(widget: Widget, subtitle: str) -> None:
    """Set the bottom border's text, repainting that one line (the `border_subtitle` setter repaints the whole
    widget); the setter when the widget is not laid out yet or the attribute is gone."""
    if not widget.is_mounted or not hasattr(widget, "_border_subtitle") or widget.outer_size.height < 2:
        widget.border_subtitle = subtitle
        return
    widget._border_subtitle = widget.render_str(subtitle).expand_tabs(4).split()[0]
    offset = widget.content_offset
    outer = widget.outer_size
    widget.refresh(Region(-offset.x, outer.height - 1 - offset.y, outer.width, 1))


def paint_in_next_frame(widget: Widget) -> None:
    """Have the screen's next frame paint `widget`, refreshed just now, though its repaint request may reach the
    screen only after that frame (the request is then dropped as painted already, not served by a frame of its
    own): the footer, changed by a key's handler and again by the focus change after it."""
    if widget.is_attached:
        widget.screen._dirty_widgets.add(widget)


def app_closing(app: App[Any]) -> bool:
    """True once the app has begun to exit or close (Textual has no public flag for either)."""
    return bool(app._exit or app._closing)


def palette_help(content: Content) -> str:
    """A palette hit's help as Content: Textual renders it through `Content.from_markup`, which takes Content
    as it is (so untrusted text is not read as markup), though its signature says `str`."""
    return cast(str, content)


def covers(regions: Iterable[Region], region: Region) -> bool:
    """Every cell of `region` lies in one of `regions`."""
    rows = [other for other in regions if other.overlaps(region)]
    for y in range(region.y, region.bottom):
        x = region.x
        for other in sorted((r for r in rows if r.y <= y < r.bottom), key=lambda r: r.x):
            if other.x > x:
                break
            x = max(x, other.right)
        if x < region.right:
            return False
    return True


def _plain_focus_watch(widget: Widget) -> bool:
    """The widget reacts to `has_focus` only by restyling (Textual's own watcher, not a subclass's)."""
    kind = type(widget)
    return kind.watch_has_focus is Widget.watch_has_focus and not hasattr(kind, "_watch_has_focus")


FOCUS_PSEUDO_CLASSES = frozenset({"focus", "focus-within"})


def _component_classes() -> frozenset[str]:
    """Every component class a widget class defines (the virtual nodes its line API styles are read from)."""
    names: set[str] = set()
    kinds: list[type[DOMNode]] = [DOMNode]
    while kinds:
        kind = kinds.pop()
        names.update(kind.__dict__.get("COMPONENT_CLASSES", ()))
        kinds.extend(kind.__subclasses__())
    return frozenset(names)


def _focus_read_by_descendants(stylesheet: Stylesheet) -> bool:
    """The stylesheet has a rule that styles a node by an ancestor's `:focus` or `:focus-within` (not by its own):
    a focus change then restyles whole subtrees. `X:focus > .part`, where `part` is a component class, styles
    X's own parts."""
    parts = _component_classes()
    return any(
        not (last.type == SelectorType.CLASS and last.name in parts)
        for rule in stylesheet.rules
        for selectors in rule.selector_set
        for last in selectors.selectors[-1:]
        if any(selector.pseudo_classes & FOCUS_PSEUDO_CLASSES for selector in selectors.selectors[:-1])
    )


class OnePassScreen(Screen[None]):
    """A screen whose frame leaves no second frame behind it to redraw what it has just drawn.

    A key's handler, the focus change it makes and the layout pass that follows ask widgets to repaint: a
    layout pass resizes every widget whose geometry changed and sets its scrollbars' sizes, which asks them to
    repaint; the footer changes as the focus does. Each request travels as an `Update` message, and one still
    not yet sent or still queued when the screen painted was served by a frame of its own after it (0.5-3 KB,
    one frame period or more later): a redraw of what the frame had painted, or (the footer) what the frame had
    left as it was before the key. A refresh clears the widget's render caches at once, so whatever part of it a
    frame paints is painted as it is now. Here a layout pass also paints every widget asked to repaint whose
    `Update` is not sent yet, and every visible scrollbar; an `Update` sent before a frame that painted all of
    its widget is dropped.
    """

    _last_frame: tuple[float, tuple[Region, ...]] = (0.0, ())  # (monotonic) when the last frame was painted, where
    _settling = False  # inside `_settled_layout`: its passes paint nothing, it paints after the last
    # `_focus_read_by_descendants` of the stylesheet's rules as they were (the list, its length): rules are only
    # added (a widget class's CSS when it is first mounted) or parsed into a new list
    _focus_rules: tuple[object, int, bool] | None = None

    def _update_focus_styles(self, focused: Widget | None = None, blurred: Widget | None = None) -> None:
        """Restyle once for a focus change, only the nodes whose styles it can change.

        Textual restyles the whole subtree of the outermost panel whose `:focus-within` changed, with the two
        widgets' own `:focus` still the old one (their `has_focus` is set as their focus and blur events arrive),
        then each widget again from its `has_focus` watcher: three passes, the costly one (a table's restyle
        repaints all of it) twice, over every button and text view of the panels. Here `has_focus` is set now,
        as those events will set it, and one pass restyles the two widgets and the panels holding them whose
        `:focus-within` rules concern them. Their descendants are restyled too only when the stylesheet has a
        rule that reads the focus from an ancestor (`Panel:focus-within Button`; a widget's component classes,
        as in `DataTable:focus > .datatable--cursor`, are its own). A panel's colours reach its descendants
        without a restyle: setting a colour repaints the node's children. A widget with a focus watcher of its
        own keeps Textual's way."""
        changed: dict[DOMNode, None] = {}  # ordered: outer panels before the widgets they hold
        for widget, focus in ((focused, True), (blurred, False)):
            if widget is None:
                continue
            for ancestor in reversed(widget.ancestors_with_self):
                if ancestor._has_focus_within:
                    changed[ancestor] = None
            if widget.has_focus != focus and _plain_focus_watch(widget):
                widget.set_reactive(Widget.has_focus, focus)
                changed[widget] = None
        if not changed:
            return
        stylesheet = self.app.stylesheet
        rules = stylesheet.rules
        known = self._focus_rules
        if known is None or known[0] is not rules or known[1] != len(rules):
            known = self._focus_rules = (rules, len(rules), _focus_read_by_descendants(stylesheet))
        if known[2]:
            changed = {node: None for root in changed for node in root.walk_children(with_self=True)}
        stylesheet.update_nodes(changed, animate=True)

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        paints = self.is_current and not self.app._batch_count and bool(size or self.outer_size)
        if not paints:
            super()._refresh_layout(size, scroll)
            return
        # the widgets asked to repaint whose `Update` is not sent yet, and every scrollbar: painted by this pass
        waiting = [widget for widget in self._compositor.visible_widgets if widget._repaint_required]
        self._dirty_widgets.update(waiting)
        self._dirty_widgets.update(self._scrollbars())
        if scroll:
            super()._refresh_layout(size, scroll)
        else:
            self._settled_layout(size)
        for widget in waiting:
            widget._repaint_required = False
        for bar in self._scrollbars():  # what the pass asked of them it has painted
            bar._repaint_required = False
            bar._repaint_regions.clear()

    def _settled_layout(self, size: Size | None) -> None:
        """Lay the screen out until no widget asks for another pass, then paint once. A pass that shows a panel
        for the first time gives its widgets their first size (and creates its scrollbars), and each then asks for
        a pass of its own: Textual painted the panel again in a frame after the key's. A whole-screen pass also
        answers every layout request made before it."""
        for widget in self._compositor.widgets:
            widget._layout_required = False
        self._settling = True
        try:
            super()._refresh_layout(size)
            for _ in range(SETTLE_PASSES):
                asking = [widget for widget in self._compositor.widgets if widget._layout_required]
                if not asking:
                    break
                for widget in asking:
                    widget._layout_required = False
                self._dirty_widgets.update(self._scrollbars())
                super()._refresh_layout(size)
        finally:
            self._settling = False
        if self.is_current:
            self._compositor_refresh()

    def _scrollbars(self) -> list[ScrollBar]:
        # the widgets on screen (the full map is rebuilt, all of it, when a scroll has invalidated it)
        return [widget for widget in self._compositor.visible_widgets if isinstance(widget, ScrollBar)]

    def _compositor_refresh(self) -> None:
        if self._settling:  # `_settled_layout` paints once, after its last pass
            return
        painting = self is self.app.screen and not self.app.is_inline
        screen = self._compositor.size.region
        regions = tuple(self._compositor._dirty_regions) if painting else ()
        super()._compositor_refresh()
        if painting:
            self._last_frame = (time.monotonic(), (screen,) if screen in regions else regions)

    @on(Update)
    def _painted_already(self, message: Update) -> None:
        at, regions = self._last_frame
        if message.time > at or message.widget is self:
            return
        found = self._compositor.visible_widgets.get(message.widget)
        if found is not None and covers(regions, found[0].intersection(found[1])):
            message.stop()
            message.prevent_default()
