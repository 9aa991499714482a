"""Offline data for RLlib's offline algorithms (BC, MARWIL): a teacher's games as rows.

| module            | what it holds                                                            |
|-------------------|--------------------------------------------------------------------------|
| ``dataset``       | ``DatasetConfig``, a teacher game's rows, the shards on disk (``generate``)|
| ``search_labels`` | a search's judgement of the shot set as rows (``action="shots"``)          |
| ``game_rows``     | one game's labelled turns as rows, the columns both action modes share     |

Importing it imports neither Ray nor torch (``generate`` and the readers import Ray when
called), so the command line can read its defaults.
"""
