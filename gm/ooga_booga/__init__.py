"""Ooga Booga: the rules core (`rules`, standard library only), the chant judge (`judge`) and the
referee at the table (`referee.OogaBoogaReferee`). Nothing is imported here, so importing the rules
pulls in no speech or matching code."""
