#!/usr/bin/python3
"""English -> Spanish message pairs from the gettext catalogues Debian packages install
(/usr/share/locale/es/LC_MESSAGES/*.mo: msgid English, msgstr Spanish), split into train/dev/test by a hash of
the English string, written as line-aligned .es/.en files.

    extract_pairs.py OUT_DIR [MO_FILE...]      # default: every Spanish catalogue installed

Plural entries keep their singular form, contexts are dropped, multi-line messages give one pair per line
when both sides have as many lines; pairs are deduplicated on the English side, and pairs whose sides are
equal, empty or longer than 300 characters are left out."""
import glob
import hashlib
import os
import struct
import sys


def read_mo(path):
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    order = "<" if magic == 0x950412DE else ">"
    if struct.unpack(order + "I", data[:4])[0] != 0x950412DE:
        raise ValueError(f"{path}: not a gettext catalogue")
    _, count, originals, translations = struct.unpack(order + "4I", data[4:20])

    def string(table, i):
        length, offset = struct.unpack(order + "2I", data[table + 8 * i: table + 8 * i + 8])
        return data[offset: offset + length].decode("utf-8", errors="strict")

    for i in range(count):
        try:
            msgid, msgstr = string(originals, i), string(translations, i)
        except UnicodeDecodeError:
            continue  # a catalogue in another encoding: its entries are skipped
        yield msgid.split("\x04")[-1].split("\x00")[0], msgstr.split("\x00")[0]


def clean(text):
    return " ".join(text.replace("\t", " ").split())


def main(out_dir, paths):
    pairs = {}
    for path in sorted(paths):
        for en, es in read_mo(path):
            en_lines, es_lines = en.split("\n"), es.split("\n")
            if len(en_lines) != len(es_lines):
                en_lines, es_lines = [en], [es]
            for e, s in zip(en_lines, es_lines):
                e, s = clean(e), clean(s)
                if e and s and e != s and len(e) <= 300 and len(s) <= 300:
                    pairs.setdefault(e, s)
    os.makedirs(out_dir, exist_ok=True)
    splits = {name: [] for name in ("train", "dev", "test")}
    for en, es in pairs.items():
        bucket = int(hashlib.sha1(en.encode()).hexdigest(), 16) % 20
        splits["test" if bucket < 2 else "dev" if bucket == 2 else "train"].append((es, en))
    for name, items in splits.items():
        for side, index in (("es", 0), ("en", 1)):
            with open(os.path.join(out_dir, f"{name}.{side}"), "w", encoding="utf-8") as f:
                f.writelines(item[index] + "\n" for item in items)
        print(f"{name}: {len(items)} pairs")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:] or glob.glob("/usr/share/locale/es/LC_MESSAGES/*.mo"))
