/**
 * Common given names the `person-name` recogniser knows (English, German, French, Spanish, Italian and
 * a few widespread others), embedded so that recognition needs no download or network. A name here
 * alone, capitalised, is a person; a name in AMBIGUOUS_GIVEN_NAMES is also an ordinary word (a month, a
 * verb, a virtue) and counts only with a capitalised surname after it ("Will Smith", not "Will you").
 */

/** Given names that are seldom anything else. */
export const GIVEN_NAMES: readonly string[] = `
Aaron Abigail Adam Adrian Agnes Aidan Alan Albert Alberto Alejandro Alessandro Alex Alexander Alexandra Alexis
Alfred Alice Alicia Alison Allison Alvaro Amanda Amelia Amy Ana Andrea Andreas Andrew Angela Anja Anna Anne Annika
Antoine Antonio Arthur Ashley Audrey Barbara Beatriz Benjamin Bernard Bernd Brandon Brenda Brian Bruno Camille
Carlos Carmen Caroline Catherine Charles Charlotte Chloe Christina Christine Christopher Claire
Claudia Daniel Daniela David Deborah Dennis Diana Diego Dieter Dominik Donald Donna Dorothy Edward Elena Elias
Elisabeth Elizabeth Ella Emily Emma Eric Erik Esther Ethan Eva Fabian Felix Fernando Florian Francesca Francisco
François Françoise Franziska Frederick Gabriel Gabriele Gary George Georg Gerhard Giovanni Giulia Giuseppe
Gregory Guillaume Günter Hannah Hans Harold Heather Heinz Helen Helga Henry Hugo Ingrid Isabel Isabella Isabelle
Jacob Jacqueline James Jane Janet Jason Javier Jean Jennifer Jeremy Jessica Joan Joanna Jochen Johann Johannes
John Jonas Jonathan Jorge José Joseph Joshua Juan Judith Julia Julian Julie Jürgen Justin Karen Karl Katharina
Katherine Kathleen Kathryn Kevin Kimberly Klaus Kyle Larry Laura Lauren Laurent Lea Leon Leonie Linda Lisa Louis
Louise Luca Lucas Lucía Luis Luisa Lukas Manuel Marco Margaret Maria María Marie Marina Mario Marion Marta Martha
Martin Matthew Matthias Maximilian Megan Melanie Melissa Michael Michelle Miguel Monika Nancy Natalie Nathan Nicholas
Nicole Nicolas Niklas Noah Olivia Oliver Pablo Pamela Patricia Patrick Paul Paula Pedro Peter Petra Philip Philippe
Pierre Rachel Rafael Ralph Raymond Rebecca Richard Robert Roberto Ronald Ryan Sabine Samantha Samuel Sandra Sara
Sarah Sebastian Sergio Sharon Simon Simone Sophia Sophie Stefan Stefanie Stephanie Stephen Steven Susan Susanne
Sven Teresa Thomas Timothy Tobias Ursula Valentina Valérie Vanessa Victoria Vincent Walter Werner William
Wolfgang Yannick Zachary Zoe
`.trim().split(/\s+/);

/** Given names that are also everyday words: counted only before a capitalised surname. */
export const AMBIGUOUS_GIVEN_NAMES: readonly string[] = `
April Art August Bill Christian Jan Carol Dawn Faith Frank Grace Guy Hope Iris Ivy Jack Joy June Mark May Max Miles Pat Rich
Rose Ruby Sandy Summer Victor Will
`.trim().split(/\s+/);

/** Capitalised words that follow an ambiguous name without making it one ("May Monday", "Will I"). */
export const NOT_SURNAMES: readonly string[] = `
I You He She It We They The A An This That These Those My Your Our Their His Her And Or But If Then So
Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July August
September October November December Day Morning Evening Night Eve First Last Next
`.trim().split(/\s+/);
