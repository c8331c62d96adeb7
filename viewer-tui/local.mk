# viewer-tui/: `pmcprof view`, the ncurses viewer over the analyzer's API.
# Everything but term.c (curses) is plain C over a canvas, so
# the unit tests build those sources without a terminal.
view_core = viewer-tui/view.h viewer-tui/text.c viewer-tui/ratio.c viewer-tui/layout.c \
	viewer-tui/canvas.c viewer-tui/table.c
view_ui = $(view_core) viewer-tui/cells.c viewer-tui/load.c viewer-tui/source.c \
	viewer-tui/panel.c viewer-tui/panel_flat.c viewer-tui/panel_func.c viewer-tui/panel_tree.c \
	viewer-tui/panel_source.c viewer-tui/panel_text.c viewer-tui/panel_annotate.c viewer-tui/ui.c


# Text, layout and the table widget: no analyzer (but its number
# formatting, which ratio cells use), no terminal.
check_PROGRAMS += tests/unit/test-view-widgets
UNIT_TESTS += tests/unit/test-view-widgets
tests_unit_test_view_widgets_SOURCES = tests/unit/test_view_widgets.c tests/harness.h \
	$(view_core) analyzer/format.c analyzer/json.c
tests_unit_test_view_widgets_LDADD = $(YAJL_LIBS) -lm

# The whole UI on a memory canvas over generated profiles (real analyzer).
check_PROGRAMS += tests/unit/test-view-ui
UNIT_TESTS += tests/unit/test-view-ui
tests_unit_test_view_ui_SOURCES = tests/unit/test_view_ui.c tests/harness.h $(view_ui)
tests_unit_test_view_ui_LDADD = analyzer/libpmcprof-analyzer.la -lm
