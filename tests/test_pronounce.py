"""Pronunciations for made-up words: espeak-ng's phonemes mapped onto the CMU phones of PocketSphinx."""

from __future__ import annotations

import pytest

from gm.pronounce import (CMU_PHONES, ESPEAK_TO_CMU, Pronunciation, espeak_phonemes, espeak_to_cmu,
                          pronounce)


class TestMapping:
    @pytest.mark.parametrize("espeak, cmu", [
        ("p_'u:_k_@", "P UW K AH"),                        # pooka
        ("'u:_g_@", "UW G AH"),                            # ooga
        ("k_'a_t#_3_m_,E_l_@_n", "K AE T ER M EH L AH N"),  # cattermelon
        ("t_'a_k_@_k_,a_t", "T AE K AH K AE T"),          # tacocat
        ("tS_'A:", "CH AA"),                               # cha
        ("j_'0_N_k_@", "Y AA NG K AH"),                    # yonka
        ("S_'3:_t", "SH ER T"),
        ("D_@", "DH AH"),
        ("dZ_'V_m_p", "JH AH M P"),
        ("h_'aI_3", "HH AY ER"),
        ("b_'A@_k", "B AA R K"),
        ("s_'I_?_n-", "S IH T AH N"),                      # a glottal stop and a syllabic n
        ("r_'a_S_@-_n_@L", "R AE SH AH N AH L"),
    ])
    def test_espeak_phonemes_become_cmu_phones(self, espeak, cmu):
        assert espeak_to_cmu(espeak) == tuple(cmu.split())

    def test_an_r_after_an_r_coloured_vowel_is_not_doubled(self):
        assert espeak_to_cmu("w_'eI_dZ_3_r-_I_N") == ("W", "EY", "JH", "ER", "IH", "NG")
        assert espeak_to_cmu("b_a_k_t_'i@3_r_i_;_@") == ("B", "AE", "K", "T", "IH", "R", "IY", "AH")

    def test_stress_marks_and_spaces_between_parts_are_ignored(self):
        assert espeak_to_cmu("l_'V_n_tS r_u:_m") == espeak_to_cmu("l_V_n_tS_r_,u:_m")

    def test_an_unknown_modifier_falls_back_to_the_plain_phoneme_and_nonsense_is_skipped(self):
        assert espeak_to_cmu("k#_a_t") == ("K", "AE", "T")
        assert espeak_to_cmu("k_QQ_t") == ("K", "T")
        assert espeak_to_cmu("") == ()

    def test_every_mapping_lands_in_the_model_phone_set(self):
        assert {phone for phones in ESPEAK_TO_CMU.values() for phone in phones} <= CMU_PHONES


class TestEspeak:
    def test_one_run_reads_a_batch_of_words(self):
        phonemes = espeak_phonemes(["pooka", "ooga", "xkcd", "tacocat"])
        assert list(phonemes) == ["pooka", "ooga", "xkcd", "tacocat"]
        assert espeak_to_cmu(phonemes["pooka"]) == ("P", "UW", "K", "AH")
        assert len(espeak_to_cmu(phonemes["xkcd"])) > 6  # spelled out letter by letter

    def test_no_words_need_no_run(self):
        assert espeak_phonemes([]) == {}


class TestPronounce:
    def test_dictionary_words_keep_the_dictionary_pronunciation(self):
        dictionary = {"attack": "AH T AE K"}.get
        result = pronounce(["attack", "pooka"], dictionary)
        assert result.of("attack") == (Pronunciation("attack", ("AH", "T", "AE", "K"), "dictionary"),)
        assert result.of("pooka") == (Pronunciation("pooka", ("P", "UW", "K", "AH"), "en-us"),)
        assert result.missing == ()

    @pytest.mark.parametrize("word", ["atrrr", "cattermelon", "tacocat", "yonka", "zhaleh", "3"])
    def test_made_up_words_get_phones(self, word):
        (first, *_) = pronounce([word]).of(word)
        assert first.phones and set(first.phones) <= CMU_PHONES

    def test_a_word_with_no_usable_phones_is_missing(self):
        result = pronounce(["'", "ooga"])
        assert result.missing == ("'",)
        assert result.of("'") == ()
        assert [p.word for p in result.entries] == ["ooga"]

    def test_alternatives_come_from_more_voices_without_duplicates(self):
        result = pronounce(["tomato", "ooga"], voices=("en-us", "en-gb"))
        tomato = result.of("tomato")
        assert [p.source for p in tomato] == ["en-us", "en-gb"]
        assert tomato[0].phones != tomato[1].phones
        assert len(result.of("ooga")) == 1

    def test_order_follows_the_words(self):
        result = pronounce(["moki", "attack", "kiki"], {"attack": "AH T AE K"}.get)
        assert [p.word for p in result.entries] == ["moki", "attack", "kiki"]
