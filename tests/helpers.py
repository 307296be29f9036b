"""Build real PDF and DOCX course files for tests."""

from __future__ import annotations

from pathlib import Path


def make_pdf(path: Path, text: str) -> Path:
    """Write `text` as a PDF (fpdf2, core font), one line per line; characters outside latin-1 become '?'."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_auto_page_break(auto=True, margin=15)
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    for line in text.replace("\r\n", "\n").split("\n"):
        # The core fonts only cover latin-1.
        safe = line.encode("latin-1", "replace").decode("latin-1")
        if safe.strip():
            pdf.multi_cell(0, 6, safe, new_x="LMARGIN", new_y="NEXT")
        else:
            pdf.ln(6)
    path = Path(path)
    pdf.output(str(path))
    return path


def make_docx(path: Path, text: str) -> Path:
    """Write `text` as a Word document with one paragraph per line."""
    import docx

    document = docx.Document()
    for line in text.replace("\r\n", "\n").split("\n"):
        document.add_paragraph(line)
    path = Path(path)
    document.save(str(path))
    return path
