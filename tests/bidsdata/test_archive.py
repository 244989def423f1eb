"""Every bad upload is refused with one DatasetError naming the problem and the file."""

from __future__ import annotations

import io
import os
import stat
import zipfile

import pytest

from bidsdata import tsv
from bidsdata.archive import DatasetError, read_folder, read_uploads, read_zip
from bidsdata.limits import LimitExceeded, UploadLimits
from tests.support.datasets import zip_bytes

GOOD_TSV = b"onset\tduration\tcue\n1.0\tn/a\tleft\n2.0\tn/a\tright\n"


def test_good_zip_is_read_with_its_top_folder_stripped():
    files = read_zip(zip_bytes({"study/sub-01/eeg/sub-01_task-a_events.tsv": GOOD_TSV,
                                "study/task-a_events.json": b'{"cue": {"Description": "Side."}}',
                                "study/dataset_description.json": b'{"Name": "s", "HEDVersion": "8.3.0"}'}))
    assert files.paths() == ["dataset_description.json", "sub-01/eeg/sub-01_task-a_events.tsv",
                             "task-a_events.json"]
    assert list(tsv.rows(files.texts["sub-01/eeg/sub-01_task-a_events.tsv"]))[1] == ["1.0", "n/a", "left"]


def test_oversized_archive_is_refused():
    with pytest.raises(LimitExceeded, match=r"upload\.zip: archive is \d+ bytes, more than the limit of 100 "
                                            r"\(HEDIT_UPLOAD_MAX_ARCHIVE_BYTES\)"):
        read_zip(zip_bytes({"sub-01_task-a_events.tsv": GOOD_TSV * 5}), limits=UploadLimits(max_archive_bytes=100))


def test_oversized_uploads_are_refused():
    with pytest.raises(LimitExceeded, match="hold over 100 bytes, more than the limit of 100"):
        read_uploads([("sub-01_task-a_events.tsv", GOOD_TSV), ("sub-02_task-a_events.tsv", GOOD_TSV * 3)],
                     limits=UploadLimits(max_archive_bytes=100))


def test_too_many_entries_are_refused():
    entries = {f"sub-0{i}_task-a_events.tsv": GOOD_TSV for i in range(6)}
    with pytest.raises(LimitExceeded, match="6 entries, more than the limit of 5"):
        read_zip(zip_bytes(entries), limits=UploadLimits(max_entries=5))


def test_total_size_of_kept_files_is_limited():
    entries = {"a.bin": os.urandom(600), "sub-01_task-a_events.tsv": GOOD_TSV * 15,
               "sub-02_task-a_events.tsv": GOOD_TSV * 15}
    with pytest.raises(LimitExceeded, match=r"sub-02_task-a_events\.tsv: the kept files expand to over 1,000 bytes"):
        read_zip(zip_bytes(entries), limits=UploadLimits(max_expanded_bytes=1000))


def test_zip_bomb_is_refused():
    # Two MB of zeros deflate to a few KB: a ratio in the hundreds.
    with pytest.raises(DatasetError, match=r"zeros\.bin: compression ratio [\d,]+ \(possible zip bomb\), more than "
                                           r"the limit of 100"):
        read_zip(zip_bytes({"zeros.bin": b"\0" * (2 * 1024 * 1024), "sub-01_task-a_events.tsv": GOOD_TSV}))


@pytest.mark.parametrize(("name", "problem"), [
    ("../x_events.tsv", r"\.\./x_events\.tsv: path escapes the dataset root"),
    ("ds/../../x_events.tsv", r"ds/\.\./\.\./x_events\.tsv: path escapes the dataset root"),
    ("/etc/x_events.tsv", r"/etc/x_events\.tsv: absolute path escapes the dataset root"),
    ("C:/x_events.tsv", r"C:/x_events\.tsv: absolute path"),
    ("ds\\..\\x_events.tsv", r"backslash in path"),
])
def test_paths_escaping_the_root_are_refused(name, problem):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        info = zipfile.ZipInfo("placeholder")
        info.filename = name  # ZipInfo normalises some names itself; store the raw hostile one
        zf.writestr(info, GOOD_TSV)
    buffer.seek(0)
    with pytest.raises(DatasetError, match=problem):
        read_zip(buffer)


def test_escaping_upload_names_are_refused():
    with pytest.raises(DatasetError, match="path escapes the dataset root"):
        read_uploads([("../sub-01_task-a_events.tsv", GOOD_TSV)])


def test_symlink_entry_is_refused():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        info = zipfile.ZipInfo("sub-01_task-a_events.tsv")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(info, "/etc/passwd")
    buffer.seek(0)
    with pytest.raises(DatasetError, match=r"sub-01_task-a_events\.tsv: symbolic link entries are not allowed"):
        read_zip(buffer)


def test_not_a_zip_is_refused():
    with pytest.raises(DatasetError, match="not a zip archive"):
        read_zip(io.BytesIO(b"PK but not really a zip"))


def test_tsv_without_header_is_refused():
    with pytest.raises(DatasetError, match=r"sub-01_task-a_events\.tsv: no header row"):
        read_uploads([("sub-01_task-a_events.tsv", b"1.0\tn/a\tleft\n2.0\tn/a\tright\n")])


def test_empty_tsv_is_refused():
    with pytest.raises(DatasetError, match=r"sub-01_task-a_events\.tsv: empty TSV"):
        read_uploads([("sub-01_task-a_events.tsv", b"\n\n")])


def test_ragged_row_is_refused_with_its_line():
    tsv = b"onset\tduration\tcue\n1.0\tn/a\tleft\n2.0\tn/a\tright\textra\n"
    with pytest.raises(DatasetError, match=r"sub-01_task-a_events\.tsv: line 3 has 4 fields, the header has 3"):
        read_zip(zip_bytes({"sub-01_task-a_events.tsv": tsv}))


def test_non_utf8_is_refused():
    with pytest.raises(DatasetError, match=r"sub-01_task-a_events\.tsv: not UTF-8 text"):
        read_uploads([("sub-01_task-a_events.tsv", "onset\tduration\tcue\n1\tn/a\tgauche é\n".encode("latin-1"))])


def test_utf8_bom_is_accepted():
    files = read_uploads([("sub-01_task-a_events.tsv", b"\xef\xbb\xbf" + GOOD_TSV)])
    assert next(tsv.rows(files.texts["sub-01_task-a_events.tsv"])) == ["onset", "duration", "cue"]


def test_sidecar_that_is_not_json_is_refused():
    with pytest.raises(DatasetError, match=r"task-a_events\.json: not valid JSON"):
        read_uploads([("sub-01_task-a_events.tsv", GOOD_TSV), ("task-a_events.json", b"{'cue': 1,}")])


def test_folder_symlink_escaping_the_folder_is_refused(tmp_path):
    outside = tmp_path / "outside.tsv"
    outside.write_bytes(GOOD_TSV)
    dataset = tmp_path / "ds"
    (dataset / "sub-01").mkdir(parents=True)
    (dataset / "sub-01" / "sub-01_task-a_events.tsv").write_bytes(GOOD_TSV)
    (dataset / "sub-01" / "sub-02_task-a_events.tsv").symlink_to(outside)
    with pytest.raises(DatasetError, match=r"sub-01/sub-02_task-a_events\.tsv: symbolic link points outside"):
        read_folder(dataset)


def test_folder_symlink_inside_the_folder_is_followed(tmp_path):
    dataset = tmp_path / "ds"
    dataset.mkdir()
    (dataset / "sub-01_task-a_events.tsv").write_bytes(GOOD_TSV)
    (dataset / "sub-02_task-a_events.tsv").symlink_to(dataset / "sub-01_task-a_events.tsv")
    assert read_folder(dataset).events_files() == ["sub-01_task-a_events.tsv", "sub-02_task-a_events.tsv"]


def _encrypted(entries: dict[str, bytes], *, flagged: set[str]) -> io.BytesIO:
    """A zip whose *flagged* entries carry the encrypted bit, in the directory and in their local headers
    (zipfile writes no encrypted entries itself, so the bit is set in the written bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    raw = bytearray(buffer.getvalue())
    with zipfile.ZipFile(io.BytesIO(bytes(raw))) as zf:
        infos = [info for info in zf.infolist() if info.filename in flagged]
    for info in infos:
        raw[info.header_offset + 6] |= 0x1  # local header: flags at byte 6
    start = 0
    while (start := raw.find(b"PK\x01\x02", start)) != -1:  # central directory: flags at byte 8, name at 46
        name_length = int.from_bytes(raw[start + 28:start + 30], "little")
        if raw[start + 46:start + 46 + name_length].decode() in flagged:
            raw[start + 8] |= 0x1
        start += 46
    return io.BytesIO(bytes(raw))


def test_an_encrypted_entry_that_is_read_is_refused_naming_it():
    archive = _encrypted({"sub-01_task-a_events.tsv": GOOD_TSV}, flagged={"sub-01_task-a_events.tsv"})
    with pytest.raises(DatasetError, match=r"sub-01_task-a_events\.tsv: the entry is encrypted"):
        read_zip(archive)


def test_an_encrypted_entry_the_reader_skips_does_not_matter():
    archive = _encrypted({"sub-01_task-a_events.tsv": GOOD_TSV, "sub-01_eeg.edf": b"\x00" * 10},
                         flagged={"sub-01_eeg.edf"})
    assert read_zip(archive).paths() == ["sub-01_task-a_events.tsv"]
