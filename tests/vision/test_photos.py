"""Finding and loading the real photos' labels (a synthetic folder: runs everywhere)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.photos import ENV, load_photos, missing_reason, parse_labels, photos_dir


def _write(folder: Path, lines: list[dict[str, object]]) -> None:
    (folder / "labels.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def test_the_environment_variable_names_the_folder(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, str(tmp_path))
    assert photos_dir() == tmp_path
    reason = missing_reason()
    assert reason is not None and str(tmp_path) in reason and "\n" not in reason
    with pytest.raises(FileNotFoundError, match="absent"):
        load_photos()


def test_without_the_variable_the_folder_is_beside_the_repository(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    repo = Path(__file__).resolve().parents[2]
    assert photos_dir() == repo.parent / "shared" / "photos"


def test_labels_load_into_photos_with_folder_source_and_boxes(tmp_path: Path) -> None:
    (tmp_path / "deck" / "a").mkdir(parents=True)
    cv2.imwrite(str(tmp_path / "deck" / "a" / "one.png"), np.full((30, 40, 3), 200, np.uint8))
    _write(tmp_path, [{"image": "deck/a/one.png", "source": "someone/cards",
                       "cards": [{"card": "10H", "box": [1, 2, 30, 25]},
                                 {"card": "QS", "box": [0, 0, 5, 5]}]},
                      {"image": "other/two.jpg", "source": "x", "cards": []}])
    assert missing_reason(tmp_path) is None
    one, two = load_photos(tmp_path)
    assert (one.name, one.folder, one.source) == ("deck/a/one.png", "deck/a", "someone/cards")
    assert [(c.card, c.box) for c in one.cards] == [("10H", (1, 2, 30, 25)), ("QS", (0, 0, 5, 5))]
    assert one.cards[0].contains(30, 25) and not one.cards[0].contains(31, 10)
    assert one.read().shape == (30, 40, 3)
    assert two.folder == "other" and two.cards == ()
    with pytest.raises(ValueError, match="not a readable image"):
        two.read()


@pytest.mark.parametrize("line", [
    '{"image": "a.jpg", "source": "s", "cards": [{"card": "1H", "box": [0, 0, 1, 1]}]}',
    '{"image": "a.jpg", "source": "s", "cards": [{"card": "AH", "box": [0, 0, 1]}]}',
    '{"image": "a.jpg", "cards": []}',
    "not json",
])
def test_a_bad_line_is_an_error_naming_it_not_a_silent_skip(line: str) -> None:
    with pytest.raises(ValueError, match="line 2"):
        parse_labels('{"image": "b.jpg", "source": "s", "cards": []}\n' + line, Path("/p"))
