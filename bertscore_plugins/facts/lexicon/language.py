"""Frequent function words of English and of the other languages most often met in Latin script.

A text with more of the others than of English reads as another language (its numbers, names and
negations would be misread by English word lists), and so does a text whose letters are mostly not Latin.
"""

from __future__ import annotations

from bertscore_plugins.facts.lexicon.words import listed

ENGLISH_WORDS = frozenset(
    listed("""a about after an and are as at be been before but by can did do does for from had has have he
    her his if in is it its may more must my no not of on one only or our out said she should than that the
    their them there they this to up was we were what when which who will with would you your""")
)
OTHER_LANGUAGE_WORDS = frozenset(
    listed("""au auf aus aux avec bei ce cette che com con dans das del della dem den der des di die du een ein
    eine einen el es est et für gli het il im ist la las le les los mit nach nel nicht niet non não os para
    pas por pour que qui se sich sind sono sont sur uma una und une von wird wurde y zijn zu été""")
)
