"""Which sentence splitter `pipeline audit` uses: pysbd, sentencex and blingfire on sentences
from real papers, each case labelled by hand with where its sentences end.

Prints, per splitter, how many cases it splits exactly as labelled and its boundary precision
and recall. Run: `.venv/bin/python bench/sentence_splitters.py` (pysbd and blingfire, which
needs numpy, are installed for this script only: `pip install pysbd blingfire numpy`).
"""

from __future__ import annotations

import importlib.util

# Each case: its sentences, as a person splits them; the text is them joined by a space. Taken
# from corpus/ and ../shared/corpus/jats_md (the Korean ones from corpus/imrad/kim-2023.md and
# sentences written the way a Korean wiki page cites).
CASES: list[tuple[str, list[str]]] = [
    ("et al. mid-sentence", [
        "Stages of spermatogenesis and oogenesis as described by Leino et al. (2005) were quantified by stereology in three sections from each gonad.",
        "Gonad samples were sectioned longitudinally at 5 μm.",
    ]),
    ("et al. before a lower-case word", [
        "Smith et al. reported an AUC of 0.86 in 214 patients.",
        "The difference was 0.07 (p = 0.012).",
    ]),
    ("decimals and percentages", [
        "At the prespecified threshold of a confidence score of 4 or higher, DWI-MRI had a sensitivity of 80.0% (60 of 75) and a specificity of 84.9% (118 of 139), giving an accuracy of 83.2%.",
        "FDG-PET/CT had a sensitivity of 66.7% (50 of 75) and a specificity of 86.3% (120 of 139), with an accuracy of 79.4%.",
        "The difference in sensitivity was statistically significant (p = 0.008), whereas the specificities were similar (p = 0.74).",
    ]),
    ("i.e. and e.g.", [
        "The individuals were selected for reproduction on the basis of their gene expression pattern, i.e. scoring if genes were correctly on or off.",
        "Some contigs were removed (e.g., if they were too short after vector trimming).",
        "Tables S8, S9, S10 and Text S1 provide links to the other assemblies and raw data.",
    ]),
    ("vs. and chi-squared", [
        "Male minnows exposed to PBDE-47 had fewer mature spermatozoa compared with control males (low dose vs. control: χ2 = 17.78, p = 0.001; high dose vs. control: χ2 = 57.22, p < 0.001).",
        "Minnow pairs spawned at similar rates in all treatments.",
    ]),
    ("E. coli", [
        "Cultivation-independent genomic surveys (e.g., “metagenomics”) revealed proteorhodopsin presence and diversity, and heterologous expression in E. coli demonstrated many of its functional properties.",
        "Access to cultivable marine bacteria that contain proteorhodopsin would be very useful.",
    ]),
    ("Fig. and Dr.", [
        "Staging follows FIGO (Fig. 2), e.g. stage IIIC vs. IVB.",
        "Dr. Kim disagreed.",
    ]),
    ("viz. and a citation range", [
        "This is a common finding in other translated versions (viz., the German, Chinese, Swedish, Italian, and Hungarian ones), regardless of the composition of the study sample (e.g., prosthodontic patients, TMD patients) [13-17,31].",
        "Test-retest reliability was excellent.",
    ]),
    ("thousands separators and bp", [
        "Oxytricha gene lengths (mean length 1,839 bp excluding UTRs) are similar to those predicted for Tetrahymena [56].",
        "Note that there are 20,162 contigs in GenBank, rather than the 22,450 reported for our final assembly.",
    ]),
    ("Korean question inside an English sentence", [
        "One item, presented in Korean to the majority of participants, read: \"수술 전 영상 검사의 정확도가 검사 시간보다 더 중요하다고 생각하십니까?\"",
        "The item asked whether the accuracy of preoperative imaging mattered more than the duration of the examination.",
        "87% of respondents agreed or strongly agreed.",
    ]),
    ("Korean sentences", [
        "수술 전 영상 검사의 정확도가 중요하다.",
        "환자의 87%가 동의했다.",
        "검사 시간은 평균 2.5시간이었다.",
    ]),
    ("Korean with et al. and a decimal", [
        "Kim et al.은 DWI-MRI의 AUC가 0.86이라고 보고했다.",
        "FDG-PET/CT의 AUC는 0.79였다!",
        "차이는 유의했다(p = 0.012).",
    ]),
    ("Korean question and exclamation", [
        "불완전 절제를 예측할 수 있을까?",
        "연구진은 214명의 환자를 분석했다.",
    ]),
    ("a sentence ending in a number", [
        "The final analysis population therefore comprised 214 patients.",
        "The median interval between FDG-PET/CT and DWI-MRI was two days (range 0 to 9).",
    ]),
    ("no. and approx.", [
        "Samples were stored at approx. 4 °C in tube no. 3 until analysis.",
        "All assays were run in duplicate.",
    ]),
]


def splitters() -> dict:
    found = {}
    if importlib.util.find_spec("sentencex"):
        import sentencex

        found["sentencex 'en'"] = lambda text: list(sentencex.segment("en", text))
        found["sentencex 'ko'"] = lambda text: list(sentencex.segment("ko", text))
    if importlib.util.find_spec("pysbd"):
        import pysbd

        segmenter = pysbd.Segmenter(language="en", clean=False)
        found["pysbd 'en'"] = segmenter.segment
    if importlib.util.find_spec("blingfire") and importlib.util.find_spec("numpy"):
        import blingfire

        found["blingfire"] = lambda text: blingfire.text_to_sentences(text).split("\n")
    return found


def boundaries(sentences: list[str]) -> set[int]:
    """Where each sentence but the last ends, in characters of the text without spaces."""
    ends, length = set(), 0
    for sentence in sentences[:-1]:
        length += len("".join(sentence.split()))
        ends.add(length)
    return ends


def main() -> None:
    print(f"{len(CASES)} cases, {sum(len(sentences) - 1 for _, sentences in CASES)} boundaries labelled by hand\n")
    print(f"{'splitter':16} {'exact cases':>12} {'precision':>10} {'recall':>8}  cases it gets wrong")
    for name, split in splitters().items():
        exact = found_right = found_all = labelled = 0
        wrong = []
        for label, sentences in CASES:
            expected = boundaries(sentences)
            got = boundaries([piece for piece in split(" ".join(sentences)) if piece.strip()] + [""])
            got.discard(len("".join(" ".join(sentences).split())))
            exact += got == expected
            found_right += len(got & expected)
            found_all += len(got)
            labelled += len(expected)
            if got != expected:
                wrong.append(label)
        precision = found_right / found_all if found_all else 1.0
        print(f"{name:16} {exact:>5} of {len(CASES):<4} {precision:>10.3f} {found_right / labelled:>8.3f}  {'; '.join(wrong) or '-'}")


if __name__ == "__main__":
    main()
