from lib.chapter import Chapter, Param
CHAPTER = Chapter(id="one_layer", title="stub", params=(Param("d", "int", "dim", min=1),))
